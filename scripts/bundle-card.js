#!/usr/bin/env node
// Plain JS, a step of the build: the task card (src/card/) as one self-contained HTML file,
// dist/card/task-card.html: its script bundled by esbuild (ext-apps' App class included) and its
// style inline, under a CSP that allows that one script (by hash), inline style and nothing else.
'use strict';
const crypto = require('node:crypto');
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const SRC = path.join(ROOT, 'src', 'card');
const OUT = path.join(ROOT, 'dist', 'card', 'task-card.html');

// zod's namespace carries every locale's messages (260 KB); the card's only messages are English
const englishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: path.dirname(args.path),
    }));
  },
};

async function main() {
  const built = await esbuild.build({
    entryPoints: [path.join(SRC, 'card.ts')],
    bundle: true,
    write: false,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [englishOnly],
  });
  const script = built.outputFiles[0].text.trim();
  if (/<\/script/i.test(script)) throw new Error('the card script contains "</script": it cannot be inlined');
  const hash = crypto.createHash('sha256').update(script).digest('base64');
  // no origin of any kind: the card reaches the server only through the host bridge (postMessage)
  const csp = `default-src 'none'; script-src 'sha256-${hash}'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'`;
  const html = fs
    .readFileSync(path.join(SRC, 'card.html'), 'utf8')
    .replace('__CSP__', () => csp)
    .replace('__STYLE__', () => fs.readFileSync(path.join(SRC, 'card.css'), 'utf8').trim())
    // the element's whole text is the hashed script: no whitespace a formatter put around the placeholder
    .replace(/<script>\s*__SCRIPT__;?\s*<\/script>/, () => `<script>${script}</script>`);
  if (!html.includes(script)) throw new Error('src/card/card.html has no <script>__SCRIPT__</script> placeholder');
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, html);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
