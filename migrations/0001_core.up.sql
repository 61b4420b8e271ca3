-- Core tables of the platform: accounts, bots and their immutable versions,
-- matches with their players, and Glicko-2 ratings with the events that
-- produced them.

CREATE TABLE users (
    id            bigserial PRIMARY KEY,
    username      text NOT NULL,
    email         text NOT NULL DEFAULT '',
    password_hash text NOT NULL,
    role          text NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'organiser')),
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_username_key ON users (lower(username));

CREATE TABLE sessions (
    token_hash  bytea PRIMARY KEY,
    user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    csrf_token  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL
);
CREATE INDEX sessions_user_id_idx ON sessions (user_id);

CREATE TABLE api_tokens (
    id           bigserial PRIMARY KEY,
    user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         text NOT NULL,
    token_hash   bytea NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz
);
CREATE INDEX api_tokens_user_id_idx ON api_tokens (user_id);

CREATE TABLE bots (
    id          bigserial PRIMARY KEY,
    owner_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name        text NOT NULL,
    game        text NOT NULL DEFAULT 'entelect',
    language    text NOT NULL DEFAULT '',
    disabled    boolean NOT NULL DEFAULT false,
    house       boolean NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX bots_owner_name_key ON bots (owner_id, lower(name));

-- A bot version never changes after upload; only its build outcome is filled in.
CREATE TABLE bot_versions (
    id             bigserial PRIMARY KEY,
    bot_id         bigint NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    number         integer NOT NULL,
    manifest       jsonb NOT NULL,
    bot_type       text NOT NULL,
    source_key     text NOT NULL,
    source_sha256  text NOT NULL,
    source_size    bigint NOT NULL,
    artifact_key   text NOT NULL DEFAULT '',
    build_status   text NOT NULL DEFAULT 'queued'
                   CHECK (build_status IN ('queued', 'building', 'ok', 'failed')),
    build_log      text NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL DEFAULT now(),
    built_at       timestamptz,
    UNIQUE (bot_id, number)
);

-- The version that plays: the newest version whose build succeeded.
ALTER TABLE bots ADD COLUMN current_version_id bigint REFERENCES bot_versions (id) ON DELETE SET NULL;

CREATE TABLE matches (
    id           bigserial PRIMARY KEY,
    game         text NOT NULL DEFAULT 'entelect',
    map_size     integer NOT NULL DEFAULT 2,
    seed         bigint NOT NULL,
    kind         text NOT NULL DEFAULT 'challenge'
                 CHECK (kind IN ('challenge', 'ladder', 'placement', 'battle')),
    ranked       boolean NOT NULL DEFAULT false,
    status       text NOT NULL DEFAULT 'queued'
                 CHECK (status IN ('queued', 'running', 'finished', 'failed', 'canceled')),
    attempt      integer NOT NULL DEFAULT 0,
    rounds       integer NOT NULL DEFAULT 0,
    replay_key   text NOT NULL DEFAULT '',
    summary      jsonb,
    error        text NOT NULL DEFAULT '',
    requested_by bigint REFERENCES users (id) ON DELETE SET NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    started_at   timestamptz,
    finished_at  timestamptz
);
CREATE INDEX matches_status_idx ON matches (status);
CREATE INDEX matches_finished_at_idx ON matches (finished_at DESC) WHERE status = 'finished';

CREATE TABLE match_players (
    match_id        bigint NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat            integer NOT NULL,
    bot_id          bigint NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    bot_version_id  bigint NOT NULL REFERENCES bot_versions (id) ON DELETE CASCADE,
    key             text NOT NULL DEFAULT '',
    points          integer NOT NULL DEFAULT 0,
    ships_left      integer NOT NULL DEFAULT 0,
    shots_fired     integer NOT NULL DEFAULT 0,
    shots_landed    integer NOT NULL DEFAULT 0,
    killed          boolean NOT NULL DEFAULT false,
    outcome         text NOT NULL DEFAULT ''
                    CHECK (outcome IN ('', 'win', 'loss', 'draw')),
    rank            integer NOT NULL DEFAULT 0,
    reason          text NOT NULL DEFAULT '',
    log             text NOT NULL DEFAULT '',
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX match_players_bot_id_idx ON match_players (bot_id, match_id DESC);

-- Current Glicko-2 rating per bot and ladder (one ladder per game); always
-- rebuildable from rating_events.
CREATE TABLE ratings (
    bot_id       bigint NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    ladder       text NOT NULL,
    rating       double precision NOT NULL,
    deviation    double precision NOT NULL,
    volatility   double precision NOT NULL,
    games        integer NOT NULL DEFAULT 0,
    wins         integer NOT NULL DEFAULT 0,
    losses       integer NOT NULL DEFAULT 0,
    draws        integer NOT NULL DEFAULT 0,
    last_game_at timestamptz,
    PRIMARY KEY (bot_id, ladder)
);
CREATE INDEX ratings_ladder_conservative_idx ON ratings (ladder, (rating - 2 * deviation) DESC, bot_id);

-- One row per bot per rated match, in match order; append-only.
CREATE TABLE rating_events (
    id                bigserial PRIMARY KEY,
    match_id          bigint NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    bot_id            bigint NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    ladder            text NOT NULL,
    rating_before     double precision NOT NULL,
    deviation_before  double precision NOT NULL,
    volatility_before double precision NOT NULL,
    rating_after      double precision NOT NULL,
    deviation_after   double precision NOT NULL,
    volatility_after  double precision NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (match_id, bot_id)
);
CREATE INDEX rating_events_bot_idx ON rating_events (bot_id, id);
