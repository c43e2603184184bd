/**
 * A space held without its key (spec 05 §7.3) as its mirrors see it: versions come in from a
 * mirror with exactly a holder's checks — the mirror's strict decoding, signature and space id,
 * no body to open (no key), no role to judge — and through the holder's data policy, as a
 * peer's would.
 */
import { MincaError } from '../errors.js';
import type { SpaceFiles } from '../files/space-files.js';
import type { HeldSpace } from '../hosting/held-space.js';
import type { Version } from '../version.js';
import { mirroredFiles } from './node-files-view.js';
import type { MirroredSpace } from './space-mirror.js';

export function heldMirroring(
  space: HeldSpace,
  files: SpaceFiles,
  subscribeFiles: (listener: () => void) => () => void,
): MirroredSpace {
  return {
    id: space.id,
    store: space.store,
    key: undefined,
    mayTakeIn: () => space.mayTakeIn(),
    takeIn: async (versions: readonly Version[]) => {
      // Versions from a mirror count against the space as a peer's do, for the account that
      // brought the space; refused, the pull fails with the reason and stores none of them.
      const reason = await space.refusal(space.entry.offeredBy, versions, true);
      if (reason !== undefined) {
        throw new MincaError(
          'not_authorized',
          `the holding policy refuses versions of space ${space.id} from a mirror: ${reason}`,
        );
      }
      return space.takeIn(versions);
    },
    files: mirroredFiles(files, subscribeFiles),
  };
}
