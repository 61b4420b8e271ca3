DROP TABLE ladder_queue;
