// Bundles the extension (dist/extension.js) and, with --tests, compiles the unit tests and the
// vscode-free modules they import (out/test/*.test.js) for `node --test`.
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';

const production = process.argv.includes('--production');
const tests = process.argv.includes('--tests');

await build({
  entryPoints: ['src/extension.ts'],
  outfile: 'dist/extension.js',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // Provided by VS Code at run time.
  external: ['vscode'],
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
});

if (tests) {
  await build({
    entryPoints: readdirSync('test')
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => `test/${f}`),
    outdir: 'out/test',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // A test that pulls in `vscode` fails here at build time instead of at run time.
    external: [],
    logLevel: 'warning',
  });
}
