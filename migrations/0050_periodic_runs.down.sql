DROP TABLE IF EXISTS periodic_runs;
