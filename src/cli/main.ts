#!/usr/bin/env node
// The `toonwire` executable. Everything lives in program.ts; this file only runs it and sets the
// exit code (instead of calling process.exit) so pending output is flushed before Node exits.
import { runCli } from './program.js';

// A reader that goes away (`toonwire report | head`) makes a stdout write fail twice: in the
// write's callback, which writeOutput turns into a quiet exit, and as an 'error' event, which
// would crash the process with a stack trace if nothing listened.
process.stdout.on('error', () => {});

process.exitCode = await runCli(process.argv);
