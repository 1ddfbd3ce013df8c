import { describe, expect, it } from 'vitest';
import { TRPCClientError } from '@trpc/client';
import { errorCode, errorHint, errorMessage, validationIssues } from './api-error';

// A client error as our server's errorFormatter shapes it (server/trpc.ts).
function clientError(message: string, data: Record<string, unknown>) {
  return TRPCClientError.from({ error: { message, code: -32600, data } } as never);
}

describe('API errors for people', () => {
  it('give field paths from data.issues', () => {
    const e = clientError('invalid input: config.groupSize: Too small', {
      code: 'BAD_REQUEST',
      httpStatus: 400,
      issues: [{ path: ['config', 'groupSize'], message: 'Too small: expected number to be >=1' }],
    });
    expect(errorCode(e)).toBe('BAD_REQUEST');
    expect(validationIssues(e)).toEqual([{ path: ['config', 'groupSize'], message: 'Too small: expected number to be >=1' }]);
    expect(errorMessage(e)).toBe('config.groupSize: Too small: expected number to be >=1');
  });

  it('say what to do for refusals and for an unreachable server', () => {
    const forbidden = clientError('your role (reviewer) cannot launch or change runs', { code: 'FORBIDDEN', httpStatus: 403 });
    expect(errorHint(forbidden)).toMatch(/ask an admin/i);
    expect(validationIssues(forbidden)).toEqual([]);
    // blind review refuses a reviewer whose role allows it: say why, not "your role"
    const blind = clientError('you have a blind review item open: episode reads (trajectories, rewards) are refused until you submit its verdict', {
      code: 'FORBIDDEN',
      httpStatus: 403,
    });
    expect(errorHint(blind)).toMatch(/^Hidden while you have a blind review item open/);
    expect(errorHint(new TypeError('Failed to fetch'))).toMatch(/npm start/);
  });

  it('show the error id of an internal error and say where the details are', () => {
    const e = clientError('internal error (id 7f3a9c01b2d4); an admin can find the details in the server log', {
      code: 'INTERNAL_SERVER_ERROR',
      httpStatus: 500,
      errorId: '7f3a9c01b2d4',
    });
    expect(errorMessage(e)).toContain('id 7f3a9c01b2d4');
    expect(errorHint(e)).toMatch(/error id.*server log/);
  });
});
