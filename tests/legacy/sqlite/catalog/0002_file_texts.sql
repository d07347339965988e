-- The text each file was indexed from (NULL for files indexed before this version).
ALTER TABLE files ADD COLUMN text TEXT;
