-- Named operator accounts of the console (/console) and the admin API (src/operators): one
-- person, one role. The password is kept only as its scrypt hash (peppered with
-- OPERATOR_PASSWORD_PEPPER, which lives outside the database); a one-time password must be
-- changed at the first login. Wrong passwords lock the account for a while (locked_until).
CREATE TABLE operators (
  name text PRIMARY KEY CHECK (name ~ '^[a-z0-9][a-z0-9._-]{1,31}$'),
  role text NOT NULL CHECK (role IN ('viewer', 'care', 'finance', 'agents', 'admin')),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  password_hash jsonb NOT NULL,
  must_change_password boolean NOT NULL DEFAULT true,
  failed_attempts integer NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
  locked_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- A console login: the cookie holds the session id, this table only its SHA-256 (a copy of the
-- table lets nobody in). It ends after idle time (last_seen_at), at logout, or when its operator
-- is disabled or given a new password (the rows go).
CREATE TABLE operator_sessions (
  id_hash text PRIMARY KEY,
  operator text NOT NULL REFERENCES operators (name) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX operator_sessions_by_operator ON operator_sessions (operator);

-- Personal API tokens (a script acts under its person's name and role): only the SHA-256 is kept.
CREATE TABLE operator_tokens (
  token_hash text PRIMARY KEY,
  operator text NOT NULL REFERENCES operators (name) ON DELETE CASCADE,
  label text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX operator_tokens_by_operator ON operator_tokens (operator);
