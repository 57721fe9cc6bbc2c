#!/usr/bin/env node
// The `fetchdown` command (npx fetchdown …): runs the compiled CLI in dist/ (`npm run build`, which `npm install` and
// `npm ci` run in a checkout through the prepare script; the published package ships dist/ built).
import '../dist/cli.js';
