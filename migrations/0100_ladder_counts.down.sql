DROP TRIGGER matches_ladder_cancel ON matches;
DROP TRIGGER match_players_ladder_count ON match_players;
DROP FUNCTION ladder_counts_rebuild();
DROP FUNCTION ladder_count_cancel();
DROP FUNCTION ladder_count_seat();
DROP TABLE ladder_version_games;
DROP TABLE ladder_day_games;
