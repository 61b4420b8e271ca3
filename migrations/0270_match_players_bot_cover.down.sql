DROP INDEX match_players_bot_id_idx;
CREATE INDEX match_players_bot_id_idx ON match_players (bot_id, match_id DESC);
