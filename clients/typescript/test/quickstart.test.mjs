import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { stock, textOf, url } from './support.mjs';

const run = promisify(execFile);

/** The quickstart exactly as the installed package's README prints it, on the gateway under test. */
async function quickstart(name = 'quickstart') {
  const require = createRequire(import.meta.url);
  const packageDir = dirname(require.resolve('@fencegate/client/package.json'));
  const readme = await readFile(join(packageDir, 'README.md'), 'utf8');
  const block = new RegExp(`<!-- ${name}:begin -->\\s*\`\`\`js\n([\\s\\S]*?)\`\`\`\\s*<!-- ${name}:end -->`).exec(readme);
  assert.ok(block, `README.md has a ${name} block`);
  assert.ok(block[1].trim().split('\n').length <= 14, `the ${name} block stays short`);
  const file = join(process.cwd(), `${name}.mjs`); // in the project, where a user's code sits
  await writeFile(file, block[1].replaceAll('http://127.0.0.1:8080', url));
  return file;
}

test('the README quickstart sells the last widget once, and then finds none', async () => {
  const file = await quickstart();
  await stock('stock/widget', 1);
  const first = await run(process.execPath, [file], { timeout: 60_000 });
  assert.match(first.stdout, /kind: 'applied'/);
  assert.equal(await textOf('stock/widget'), '0');
  const second = await run(process.execPath, [file], { timeout: 60_000 });
  assert.match(second.stdout, /sold out/);
  assert.equal(await textOf('stock/widget'), '0');
});

test('the README groups block moves one unit under a lease group in one transaction', async () => {
  const file = await quickstart('groups');
  await stock('stock/a', 3);
  await stock('stock/b', 0);
  const moved = await run(process.execPath, [file], { timeout: 60_000 });
  assert.match(moved.stdout, /kind: 'committed'/);
  assert.deepEqual([await textOf('stock/a'), await textOf('stock/b')], ['2', '1']);
});
