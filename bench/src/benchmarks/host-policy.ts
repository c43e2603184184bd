// A subscription host's decision on a batch of versions (spec 06 §2, §3), as it makes one for
// every batch a client sends: 10,000 accounts, each with a subscription and a space held, in a
// host store on a real SQLite file (MINCA_BENCH_POLICY_ACCOUNTS). The median of 2,000 decisions
// after 200 to warm up; each reads the subscriptions' change mark and looks up one account's.
import { runPolicyLoad } from '@minca/cli/policy-load';
import { type Benchmark, median } from '../harness.js';

const ACCOUNTS = Number(process.env.MINCA_BENCH_POLICY_ACCOUNTS ?? 10_000);
const WARM = 200;

const bench: Benchmark = {
  name: 'host-policy',
  async run() {
    const { decisionMs } = await runPolicyLoad({ accounts: ACCOUNTS, decisions: WARM + 2_000 });
    const timed = decisionMs.slice(WARM);
    const n = ACCOUNTS.toLocaleString('en-US');
    return [
      {
        name: `a decision on a batch, ${n} subscriptions and ${n} spaces held`,
        value: median(timed),
        unit: 'ms',
        note: `SQLite host store; slowest ${Math.max(...timed).toFixed(2)} ms`,
      },
    ];
  },
};
export default bench;
