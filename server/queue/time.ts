import { sql } from 'drizzle-orm';

/** `now() + ms`, computed by the database so every worker shares one clock. */
export const inMs = (ms: number) => sql`now() + ${ms} * interval '1 millisecond'`;
