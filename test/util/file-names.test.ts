// File names made from URLs for `fetchdown crawl --out`: from the path and query, safe, unique in their directory.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createFileNamer } from '../../src/util/file-names.js';

test('a URL path becomes one safe file name, the root index.md, another host in front', () => {
  const nameOf = createFileNamer();
  assert.equal(nameOf('https://docs.example/'), 'index.md');
  assert.equal(nameOf('https://docs.example/guide/install/'), 'guide-install.md');
  assert.equal(nameOf('https://docs.example/api/v2/users.html'), 'api-v2-users.md');
  assert.equal(nameOf('https://docs.example/search?q=a%20b&page=2'), 'search-q-a-b-page-2.md');
  assert.equal(nameOf('https://docs.example/wiki/Caf%C3%A9'), 'wiki-Café.md');
  assert.equal(nameOf('https://blog.docs.example/post/1'), 'blog.docs.example-post-1.md');
  assert.equal(nameOf('https://docs.example/..%2F..%2Fetc%2Fpasswd'), 'etc-passwd.md');
  assert.equal(nameOf('https://docs.example/.hidden'), 'hidden.md');
  assert.equal(nameOf('https://docs.example/%E0%A4%A'), 'E0-A4-A.md', 'a path that does not decode is kept as written');
});

test('a name taken already, in any case, gets a number; long paths are cut', () => {
  const nameOf = createFileNamer();
  assert.equal(nameOf('https://docs.example/Guide'), 'Guide.md');
  assert.equal(nameOf('https://docs.example/guide'), 'guide-2.md');
  assert.equal(nameOf('https://docs.example/guide/'), 'guide-3.md');
  const long = nameOf(`https://docs.example/${'chapter/'.repeat(40)}`);
  assert.ok(long.length <= 123 && /^chapter-chapter.*[a-z]\.md$/.test(long), long);
  assert.equal(createFileNamer('.txt')('https://docs.example/'), 'index.txt');
});
