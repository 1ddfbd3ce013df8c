export * from './auth';
export * from './runs';
export * from './episodes';
export * from './infra';
export * from './artifacts';
export * from './models';
export * from './env-sessions';
export * from './monitoring';
