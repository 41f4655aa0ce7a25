-- The Express app's tables (bench/peers/express-app.mjs): a column per field, nested values
-- (address, tags) as JSON text, and fields the columns do not name in `extra`, a JSON object.
CREATE TABLE IF NOT EXISTS users (
  id INTEGER PRIMARY KEY,
  name TEXT,
  email TEXT,
  age INTEGER,
  address TEXT,
  tags TEXT,
  extra TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS products (
  id INTEGER PRIMARY KEY,
  name TEXT,
  sku TEXT,
  price REAL,
  stock INTEGER,
  category TEXT,
  description TEXT,
  extra TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS users_email ON users (email);
CREATE INDEX IF NOT EXISTS products_sku ON products (sku);
CREATE INDEX IF NOT EXISTS products_price ON products (price);
