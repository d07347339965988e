-- Each retrieve's answer_confidence; NULL for those logged before it existed.
ALTER TABLE interactions ADD COLUMN answer_confidence double precision;
