-- The competition around the ladder: clans, challenges, battles, the admin
-- audit log, worker heartbeats and platform settings.

ALTER TABLE users ADD COLUMN auto_accept_challenges boolean NOT NULL DEFAULT false;

CREATE TABLE clans (
    id          bigserial PRIMARY KEY,
    name        text NOT NULL,
    description text NOT NULL DEFAULT '',
    -- The join key is the secret in the clan's invite link; the owner can
    -- replace it to stop old links working.
    join_key    text NOT NULL,
    created_by  bigint REFERENCES users (id) ON DELETE SET NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX clans_name_key ON clans (lower(name));

-- A user belongs to at most one clan.
CREATE TABLE clan_members (
    clan_id   bigint NOT NULL REFERENCES clans (id) ON DELETE CASCADE,
    user_id   bigint NOT NULL UNIQUE REFERENCES users (id) ON DELETE CASCADE,
    role      text NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'member')),
    joined_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (clan_id, user_id)
);

CREATE TABLE challenges (
    id                bigserial PRIMARY KEY,
    challenger_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    challenger_bot_id bigint NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    challenged_bot_id bigint NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    status            text NOT NULL DEFAULT 'pending'
                      CHECK (status IN ('pending', 'accepted', 'declined', 'canceled')),
    ranked            boolean NOT NULL DEFAULT false,
    match_id          bigint REFERENCES matches (id) ON DELETE SET NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    responded_at      timestamptz
);
CREATE INDEX challenges_challenger_idx ON challenges (challenger_id, created_at DESC);
CREATE INDEX challenges_challenged_bot_idx ON challenges (challenged_bot_id, created_at DESC);

CREATE TABLE battles (
    id                bigserial PRIMARY KEY,
    name              text NOT NULL,
    organiser_id      bigint REFERENCES users (id) ON DELETE SET NULL,
    format            text NOT NULL CHECK (format IN ('round_robin', 'double_elimination', 'swiss', 'free_for_all')),
    game              text NOT NULL DEFAULT 'entelect',
    map_size          integer NOT NULL DEFAULT 2,
    games_per_pairing integer NOT NULL DEFAULT 1 CHECK (games_per_pairing BETWEEN 1 AND 99),
    swiss_rounds      integer NOT NULL DEFAULT 0,
    start_at          timestamptz NOT NULL,
    entry_deadline    timestamptz NOT NULL,
    status            text NOT NULL DEFAULT 'open'
                      CHECK (status IN ('open', 'running', 'finished', 'canceled')),
    -- Hidden results stay hidden from everyone but organisers until released.
    results_hidden    boolean NOT NULL DEFAULT false,
    released          boolean NOT NULL DEFAULT false,
    seed              bigint NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    started_at        timestamptz,
    finished_at       timestamptz
);

CREATE TABLE battle_entries (
    battle_id      bigint NOT NULL REFERENCES battles (id) ON DELETE CASCADE,
    bot_id         bigint NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    user_id        bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- Frozen when the battle starts; the battle plays only this version.
    bot_version_id bigint REFERENCES bot_versions (id) ON DELETE SET NULL,
    seed_position  integer,
    final_position integer,
    entered_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (battle_id, bot_id)
);

CREATE TABLE battle_games (
    id             bigserial PRIMARY KEY,
    battle_id      bigint NOT NULL REFERENCES battles (id) ON DELETE CASCADE,
    round          integer NOT NULL,
    -- For double elimination: the bracket match this game belongs to.
    bracket_match  integer,
    game_number    integer NOT NULL DEFAULT 1,
    match_id       bigint NOT NULL UNIQUE REFERENCES matches (id) ON DELETE CASCADE
);
CREATE INDEX battle_games_battle_idx ON battle_games (battle_id, round);

CREATE TABLE audit_log (
    id          bigserial PRIMARY KEY,
    actor_id    bigint REFERENCES users (id) ON DELETE SET NULL,
    action      text NOT NULL,
    target_type text NOT NULL DEFAULT '',
    target_id   bigint,
    detail      text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_created_idx ON audit_log (created_at DESC);

CREATE TABLE worker_heartbeats (
    worker_id    text PRIMARY KEY,
    hostname     text NOT NULL DEFAULT '',
    started_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    running      integer NOT NULL DEFAULT 0,
    sandbox      text NOT NULL DEFAULT ''
);

CREATE TABLE platform_settings (
    key   text PRIMARY KEY,
    value text NOT NULL
);
INSERT INTO platform_settings (key, value) VALUES ('open_challenges', 'true');
