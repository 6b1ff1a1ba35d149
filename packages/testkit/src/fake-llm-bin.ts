#!/usr/bin/env node
import { main } from './fake-llm/fake-llm-cli.js';

await main(process.argv.slice(2));
