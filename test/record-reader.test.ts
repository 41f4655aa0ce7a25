/** Reading import input: NDJSON and JSON arrays, each record with the line it starts on. */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { InputError, type RecordText, readRecords } from '../src/commands/record-reader.js';
import { CHUNK, hugeRecord } from './helpers/huge-input.js';

/** Feeds `text` in chunks of `size` characters, so that every split point is exercised. */
async function read(text: string, size = text.length || 1): Promise<RecordText[]> {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  const out: RecordText[] = [];
  for await (const record of readRecords(Readable.from(chunks.map((c) => Buffer.from(c))))) out.push(record);
  return out;
}

const ARRAY = `[
  {"name": "a ] tricky \\" string, with {braces}"},
  {
    "nested": [1, {"deep": "]"}],
    "n": 2
  }  ,
  "a string record", 7, null,
  {"multi": "line\\nescape"}
]
`;

describe('reading import input', () => {
  it('decodes a character split between chunks, and stops at the first byte that is not UTF-8', async () => {
    const bytes = Buffer.from('{"a":"€"}\n{"b":"😀"}\n');
    for (let size = 1; size <= 4; size++) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
      const records: string[] = [];
      for await (const record of readRecords(Readable.from(chunks))) records.push(record.text);
      assert.deepEqual(records, ['{"a":"€"}', '{"b":"😀"}'], `chunks of ${size} bytes`);
    }
    const bad = Buffer.concat([bytes, Buffer.from('{"c":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]);
    for (const size of [1, 3, bad.length]) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < bad.length; i += size) chunks.push(bad.subarray(i, i + size));
      await assert.rejects(
        async () => {
          for await (const _ of readRecords(Readable.from(chunks))) {
          }
        },
        (error: Error) =>
          error instanceof InputError &&
          error.line === 3 &&
          /not UTF-8 text: it goes wrong at byte 31$/.test(error.message),
        `chunks of ${size} bytes`,
      );
    }
  });

  it('splits a JSON array into its elements, each with its first line, whatever the chunking', async () => {
    for (const size of [1, 2, 3, 7, 64, ARRAY.length]) {
      const records = await read(ARRAY, size);
      assert.deepEqual(
        records.map((r) => r.line),
        [2, 3, 7, 7, 7, 8],
        `chunks of ${size}`,
      );
      assert.deepEqual(JSON.parse(records[0]?.text ?? ''), { name: 'a ] tricky " string, with {braces}' });
      assert.deepEqual(JSON.parse(records[1]?.text ?? ''), { nested: [1, { deep: ']' }], n: 2 });
      assert.deepEqual(
        records.slice(2).map((r) => r.text),
        ['"a string record"', '7', 'null', '{"multi": "line\\nescape"}'],
      );
    }
  });

  it('reads NDJSON line by line, skipping blank lines and counting them', async () => {
    const text = '\n{"a":1}\r\n\n  {"b":2}  \n{"c":3}';
    for (const size of [1, 5, text.length]) {
      assert.deepEqual(await read(text, size), [
        { line: 2, text: '{"a":1}' },
        { line: 4, text: '{"b":2}' },
        { line: 5, text: '{"c":3}' },
      ]);
    }
  });

  it('reads empty input and an empty array as no records, and ignores a byte order mark', async () => {
    assert.deepEqual(await read(''), []);
    assert.deepEqual(await read(' \n\t'), []);
    assert.deepEqual(await read('[ ]'), []);
    assert.deepEqual(await read('\uFEFF[{"a":1}]'), [{ line: 1, text: '{"a":1}' }]);
    assert.deepEqual(await read('\uFEFF{"a":1}\n'), [{ line: 1, text: '{"a":1}' }]);
  });

  it('reports a broken array frame with its line', async () => {
    const cases: [string, number, RegExp][] = [
      ['[{"a":1},\n{"b":2}\n', 3, /not closed/],
      ['[{"a":1},\n]', 2, /expected a record after ","/],
      ['[\n,{"a":1}]', 2, /found ","/],
      ['[{"a":1}]\n\n{"b":2}', 3, /after the end/],
    ];
    for (const [text, line, message] of cases) {
      await assert.rejects(read(text), (error: unknown) => {
        assert.ok(error instanceof InputError, String(error));
        assert.equal(error.line, line, text);
        assert.match(error.message, message);
        return true;
      });
    }
  });

  it('leaves the syntax of an element to JSON.parse, with the line it starts on', async () => {
    const records = await read('[{"a":1},\n{"b": tru},\n{"c":3}]');
    assert.deepEqual(
      records.map((r) => r.line),
      [1, 2, 3],
    );
    assert.throws(() => JSON.parse(records[1]?.text ?? ''));
  });

  it('refuses a record past the limit as soon as it is read past it, in NDJSON and in an array', async () => {
    const LIMIT = 1 << 20;
    for (const [head, line] of [
      ['{"a":1}\n\n{"big":"', 3],
      ['[{"a":1},\n\n {"big":"', 3],
    ] as const) {
      const pulled = { bytes: 0 };
      // 512 MiB of one record, made as it is read: only what the reader pulls ever exists.
      const source = Readable.from(hugeRecord(head, 512 << 20, pulled));
      const seen: RecordText[] = [];
      await assert.rejects(
        (async () => {
          for await (const record of readRecords(source, LIMIT)) seen.push(record);
        })(),
        (error: unknown) => {
          assert.ok(error instanceof InputError, String(error));
          assert.equal(error.line, line);
          assert.match(error.message, /longer than 1048576 bytes/);
          return true;
        },
      );
      assert.deepEqual(seen, [{ line: 1, text: '{"a":1}' }]);
      // Read-ahead aside (Readable.from buffers 16 chunks), it stopped at the limit.
      assert.ok(pulled.bytes < LIMIT + 32 * CHUNK, `read ${pulled.bytes} bytes`);
      assert.ok(source.destroyed, 'the input is closed');
    }
  });

  it('reads a record just within the limit whole', async () => {
    const text = `{"a":"${'é'.repeat(1000)}"}`;
    const bytes = Buffer.byteLength(text);
    assert.deepEqual(await read(`${text}\n`, 7), [{ line: 1, text }]);
    const within = async (input: string) => {
      const out: RecordText[] = [];
      for await (const r of readRecords(Readable.from([Buffer.from(input)]), bytes)) out.push(r);
      return out;
    };
    assert.equal((await within(`${text}\n`)).length, 1);
    assert.equal((await within(`[${text}]`)).length, 1);
    await assert.rejects(within(`${text}x\n`), /longer than/);
  });
});
