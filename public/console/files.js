/**
 * Files in the console: a file field's input (a file picker, beside the files the record
 * holds, each kept unless unticked) and previews of the files a record holds, in the list and
 * the editor: an image as its thumbnail, another file as a link. An <img> cannot send the API
 * key or the account's token, so the bytes are fetched with the console's credential and
 * shown from a blob: URL, which the page's Content-Security-Policy allows for images.
 */

/** The images restock makes thumbnails of. */
const IMAGES = /^image\/(png|jpeg|webp|gif|avif|tiff)$/;

/** (path) => Promise<Blob | undefined>: a file's bytes, fetched with the console's credential (console.js). */
let fetchFile = async () => undefined;
/** Each file fetched for the collection on screen, by path: the promise of its blob: URL. */
const fetched = new Map();

/** Sets how files are fetched (console.js's credential), and forgets those fetched for another collection. */
export function useFileFetcher(fetcher) {
  fetchFile = fetcher;
  forgetFiles();
}

/** Lets go of the files fetched so far: another collection is on screen. */
export function forgetFiles() {
  for (const url of fetched.values()) url.then((href) => href && URL.revokeObjectURL(href));
  fetched.clear();
}

function objectUrl(path) {
  if (!fetched.has(path))
    fetched.set(
      path,
      fetchFile(path).then((blob) => blob && URL.createObjectURL(blob)),
    );
  return fetched.get(path);
}

const isFile = (value) =>
  value !== null && typeof value === 'object' && typeof value.name === 'string' && typeof value.type === 'string';

/** The files a field's value holds (one, several or none), when it holds files' metadata. */
export function filesIn(value) {
  const files = Array.isArray(value) ? value : [value];
  return files.length > 0 && files.every(isFile) ? files : [];
}

/** The smallest thumbnail a field lists (`100x100`), for previews. */
function smallestThumb(spec) {
  const sizes = (Array.isArray(spec?.thumbs) ? spec.thumbs : []).map((size) => {
    const [width, height] = size.split('x').map((n) => Number.parseInt(n, 10) || 1000);
    return { size, area: width * height };
  });
  return sizes.sort((a, b) => a.area - b.area)[0]?.size;
}

function sizeText(bytes) {
  if (!(bytes >= 1024)) return `${bytes} bytes`;
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * A preview of `file`, held by the record at `base` (`/product/7/`) in `field` (whose schema's
 * `x-file` is `spec`): an image's thumbnail inside a link to the file, or just the link.
 */
export function filePreview(base, field, file, spec) {
  const path = `${base}files/${encodeURIComponent(field)}/${encodeURIComponent(file.name)}`;
  const link = document.createElement('a');
  link.className = 'file';
  link.href = path;
  link.title = `${file.name}: ${file.type}, ${sizeText(file.size)}`;
  link.addEventListener('click', async (event) => {
    event.preventDefault();
    event.stopPropagation();
    const href = await objectUrl(path);
    if (!href) return;
    const save = Object.assign(document.createElement('a'), { href, download: file.name });
    save.click();
  });
  if (!IMAGES.test(file.type)) {
    link.textContent = file.name;
    return link;
  }
  const thumb = smallestThumb(spec);
  const image = Object.assign(document.createElement('img'), { alt: file.name, className: 'thumb' });
  link.append(image);
  objectUrl(thumb ? `${path}?thumb=${thumb}` : path).then((href) => {
    if (href) image.src = href;
    else image.replaceWith(file.name);
  });
  return link;
}

/** The previews of every file `value` (a field's) holds, or undefined when it holds no files' metadata. */
export function filePreviews(base, field, value, spec) {
  const files = filesIn(value);
  if (files.length === 0) return undefined;
  const span = document.createElement('span');
  span.className = 'files';
  span.append(...files.map((file) => filePreview(base, field, file, spec)));
  return span;
}

/**
 * A file field's input for the editor's form (./schema-form.js): the files the record at
 * `base` holds, each with a Keep box, and a file picker that takes the field's types (several
 * files where the field holds several). `read()` gives the JSON value that keeps the ticked
 * files; `files()` the picked files, sent as parts named after the field.
 */
export function makeFileField({ name, schema, value, required, id, element, base }) {
  const spec = schema['x-file'];
  const maxFiles = Number.isInteger(spec.maxFiles) ? spec.maxFiles : 1;
  const many = maxFiles > 1;
  const held = filesIn(value);
  const kept = new Set(held);
  const input = element('input', { id, type: 'file', multiple: many });
  if (Array.isArray(spec.types) && spec.types.length > 0) input.accept = spec.types.join(',');
  const label = element('label', { htmlFor: id, className: required ? 'required' : '' }, name);
  const holds = held.map((file) => {
    const keep = element('input', { type: 'checkbox', checked: true });
    keep.setAttribute('aria-label', `Keep ${file.name}`);
    keep.addEventListener('change', () => (keep.checked ? kept.add(file) : kept.delete(file)));
    const shown = base ? filePreview(base, name, file, spec) : file.name;
    return element('label', { className: 'held-file' }, keep, 'Keep ', shown);
  });
  const types = Array.isArray(spec.types) && spec.types.length > 0 ? spec.types.join(', ') : 'any type';
  const limit = Number.isInteger(spec.maxBytes) ? `, at most ${sizeText(spec.maxBytes)}` : '';
  const count = many ? ` Up to ${maxFiles} files.` : ' A new file replaces the one held.';
  const hint = [schema.description, `${types}${limit}.${count}`].filter(Boolean).join(' ');
  const help = element('p', { className: 'hint', id: `${id}-help`, textContent: hint });
  const problem = element('p', { className: 'field-problem', id: `${id}-problem`, hidden: true });
  input.setAttribute('aria-describedby', `${id}-help ${id}-problem`);
  const wrapper = element('div', { className: 'field file-field' }, label, ...holds, input, help, problem);
  wrapper.dataset.field = name;
  return {
    name,
    input,
    wrapper,
    read() {
      const total = kept.size + input.files.length;
      if (total > maxFiles) return { error: `holds at most ${maxFiles} file${many ? 's' : ''}` };
      if (kept.size === 0) return {};
      // Unchanged, the value goes back as it came: a change then leaves the field alone.
      if (kept.size === held.length) return { value };
      return { value: many ? held.filter((file) => kept.has(file)) : held[0] };
    },
    files: () => [...input.files].map((file) => [name, file]),
    /** Where the form shows what is wrong with the field. */
    problem,
  };
}

/** A write's body: `fields` as JSON, or a form with them in its `record` part beside the files picked. */
export function writeBody(fields, files) {
  if (files.length === 0) return fields;
  const form = new FormData();
  form.append('record', JSON.stringify(fields));
  for (const [field, file] of files) form.append(field, file, file.name);
  return form;
}
