/** Configuration: flags over environment over defaults, and the README lists every setting. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ConfigError, defaultConfig, helpText, loadConfig, settings } from '../src/config.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = defaultConfig();
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.databaseUrl, 'sqlite:./data/restock.db');
    assert.equal(config.logLevel, 'info');
    assert.deepEqual([...config.methodOverride], ['GET', 'POST']);
    assert.equal(config.bodyLimit, 1024 * 1024);
    assert.equal(config.maxDepth, 32);
    assert.equal(config.maxFieldNameLength, 200);
    assert.equal(config.maxRecordBytes, 1024 * 1024);
    assert.equal(config.maxPageBytes, 8 * 1024 * 1024);
  });

  it('makes MAX_RECORD_BYTES follow BODY_LIMIT unless it is set', () => {
    assert.equal(loadConfig([], { BODY_LIMIT: '2000' }).config.maxRecordBytes, 2000);
    assert.equal(loadConfig(['--body-limit', '3000'], { BODY_LIMIT: '2000' }).config.maxRecordBytes, 3000);
    assert.equal(loadConfig([], { BODY_LIMIT: '2000', MAX_RECORD_BYTES: '500' }).config.maxRecordBytes, 500);
    assert.equal(defaultConfig({ bodyLimit: 4096 }).maxRecordBytes, 4096);
    assert.equal(defaultConfig({ bodyLimit: 4096, maxRecordBytes: 100 }).maxRecordBytes, 100);
    assert.throws(() => loadConfig([], { MAX_RECORD_BYTES: '0' }), /MAX_RECORD_BYTES/);
    assert.throws(() => loadConfig([], { MAX_PAGE_BYTES: '0' }), /MAX_PAGE_BYTES/);
  });

  it('takes a flag over an environment variable over the default', () => {
    const { config } = loadConfig(['--port', '8080'], { PORT: '9090', HOST: '0.0.0.0' });
    assert.equal(config.port, 8080);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(loadConfig([], { PORT: '' }).config.port, 3000, 'an empty variable counts as unset');
  });

  it('refuses bad values naming the setting', () => {
    assert.throws(
      () => loadConfig([], { PORT: '70000' }),
      (e: Error) => e instanceof ConfigError && /PORT/.test(e.message),
    );
    assert.throws(() => loadConfig(['--log-level', 'loud'], {}), /--log-level/);
    assert.throws(() => loadConfig([], { MAX_DEPTH: '0' }), /MAX_DEPTH/);
  });

  it('lists every setting in --help and in the README', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const rows = readme
      .split('\n')
      .filter((line) => line.startsWith('|'))
      .map((line) => line.split('|').map((cell) => cell.trim()));
    const help = helpText();
    for (const s of settings) {
      assert.ok(help.includes(`--${s.flag}`) && help.includes(s.env), `--help lacks ${s.env}`);
      const row = rows.find((cells) => cells[1] === `\`${s.env}\``);
      const fallback = s.fallback === '' ? 'none' : `\`${s.fallback}\``;
      assert.deepEqual(row?.slice(2, 4), [`\`--${s.flag}\``, fallback], `README row of ${s.env}`);
    }
  });
});
