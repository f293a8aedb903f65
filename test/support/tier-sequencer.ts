import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The order the tiers' files start in, longest first: `npm run dev`'s starts and the ingest tier's live feeds are the
 * run's long poles, the pure unit tier fills the gaps at the end. Vitest's own order runs projects by name, which
 * put the three-minute `npm run dev` file halfway through and the whole run behind it.
 */
const TIER_ORDER = ["devkit", "database", "system", "workers", "workers-alone", "unit"];

export class TierSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Within a tier vitest's order stands (failed first, then longest, unknown files by size); the sort is stable.
    const rank = (spec: TestSpecification) => {
      const tier = TIER_ORDER.indexOf(spec.project.name);
      return tier === -1 ? TIER_ORDER.length : tier;
    };
    return (await super.sort(files)).sort(
      (a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || rank(a) - rank(b),
    );
  }
}
