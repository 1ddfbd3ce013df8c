import type { IncomingMessage, ServerResponse } from 'node:http';

export declare const PEER_HEADER: 'x-crucible-peer';
export declare function stampPeer(req: IncomingMessage): void;
export declare function withPeerHeader(
  handle: (req: IncomingMessage, res: ServerResponse) => unknown,
): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
export declare function servedByFront(): boolean;
