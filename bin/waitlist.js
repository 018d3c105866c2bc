#!/usr/bin/env node
// Thin launcher: the real program is the compiled CLI in dist/.
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv);
