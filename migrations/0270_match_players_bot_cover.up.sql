-- A bot's seats, newest first, with what its pages show of each seat: the
-- history, the bot page and head to head read their rows from the index
-- alone instead of visiting one heap page per seat.
DROP INDEX match_players_bot_id_idx;
CREATE INDEX match_players_bot_id_idx ON match_players (bot_id, match_id DESC) INCLUDE (seat, outcome, points, rank);
