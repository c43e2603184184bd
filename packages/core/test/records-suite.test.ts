import { runRecordsTests } from '../src/testing/records.js';
import { fakeStores } from './fake-adapter.js';

// Without the optional adapter methods too: the node must answer the same either way.
runRecordsTests('the fake adapter', async () => ({ factory: fakeStores({ optional: true }) }));
runRecordsTests('the fake adapter without optional methods', async () => ({
  factory: fakeStores(),
}));
