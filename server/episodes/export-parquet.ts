import { parquetWriteBuffer } from 'hyparquet-writer';
import type { ExportedEpisode } from './export';

/**
 * Exported episodes as one Parquet file (hyparquet-writer): a row per episode, scalar fields as
 * typed columns, nested ones (messages, components, the token view) as JSON columns, which
 * pandas, pyarrow and Hugging Face datasets read as strings to decode.
 */
export function episodesParquet(items: ExportedEpisode[]): ArrayBuffer {
  const col = <T>(f: (e: ExportedEpisode) => T) => items.map(f);
  return parquetWriteBuffer({
    columnData: [
      { name: 'id', data: col((e) => e.id), type: 'STRING' },
      { name: 'run_id', data: col((e) => e.run_id), type: 'STRING' },
      { name: 'task_id', data: col((e) => e.task_id), type: 'STRING' },
      { name: 'iteration', data: col((e) => e.iteration), type: 'INT32' },
      { name: 'status', data: col((e) => e.status), type: 'STRING' },
      { name: 'end_reason', data: col((e) => e.end_reason), type: 'STRING' },
      { name: 'reward', data: col((e) => e.reward), type: 'DOUBLE' },
      { name: 'components', data: col((e) => e.components), type: 'JSON' },
      { name: 'env_hash', data: col((e) => e.env_hash), type: 'STRING' },
      { name: 'harness_version', data: col((e) => e.harness_version), type: 'STRING' },
      { name: 'policy_version', data: col((e) => e.policy_version), type: 'INT32' },
      { name: 'messages', data: col((e) => e.messages), type: 'JSON' },
      { name: 'tokens', data: col((e) => e.tokens), type: 'JSON' },
    ],
  });
}
