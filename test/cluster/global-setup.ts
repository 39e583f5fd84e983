/** The cluster tier's jest globalSetup: the Temporal server built (or found in the caches) before any test's timeout runs. */
import { ensureServerBuild } from '../../scripts/cluster/build';

export default function globalSetup(): void {
  const build = ensureServerBuild(undefined, (m) => console.log(`[cluster] ${m}`));
  console.log(`[cluster] temporal-server ${build.version}: ${build.server}`);
}
