#!/usr/bin/env node
// The `fetchdown` command (npx fetchdown …): runs src/cli.ts from source through tsx, so a checkout needs no build.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
