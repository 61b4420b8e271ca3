DELETE FROM matches WHERE kind = 'duel';
DROP INDEX matches_duel_game_key;
ALTER TABLE matches DROP COLUMN duel_game;
ALTER TABLE matches DROP COLUMN duel_id;
ALTER TABLE matches DROP CONSTRAINT matches_kind_check;
ALTER TABLE matches ADD CONSTRAINT matches_kind_check
    CHECK (kind IN ('challenge', 'ladder', 'placement', 'battle'));
DROP TABLE duels;
