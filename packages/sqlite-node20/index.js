// better-sqlite3 12, for restock on Node.js 20 only. This package exists for its "engines":
// npm skips an optional dependency whose engines the running Node.js does not satisfy, so
// Node.js 22 and later never download or compile this binding (they load better-sqlite3 13,
// which ships prebuilt binaries).
module.exports = require('better-sqlite3');
