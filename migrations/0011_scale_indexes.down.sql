DROP INDEX IF EXISTS bots_game_idx;
DROP INDEX IF EXISTS matches_kind_created_idx;
DROP INDEX IF EXISTS match_players_bot_version_idx;
