-- Indexes for the queries that must stay fast at 10,000 bots and 1,000,000
-- matches: games of a bot version (ladder placement), a user's requested
-- matches, and rating history per match.
CREATE INDEX match_players_bot_version_idx ON match_players (bot_version_id);
CREATE INDEX matches_kind_created_idx ON matches (kind, created_at DESC);
CREATE INDEX bots_game_idx ON bots (game) WHERE NOT disabled AND current_version_id IS NOT NULL;
