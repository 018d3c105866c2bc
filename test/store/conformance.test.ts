// Runs the Store conformance suite against every adapter (SQLite always, PostgreSQL with TEST_DATABASE_URL).
import { ADAPTERS } from './adapters.js';
import { storeConformance } from './conformance.js';

for (const adapter of ADAPTERS) storeConformance(adapter);
