-- When a personal access token's identity (user, groups, enrichment scope) was last confirmed by
-- the identity provider: at the token's creation, at each sign-in of its user and at each
-- session refresh that brings the provider's claims. A token whose identity is older than
-- TOKEN_IDENTITY_MAX_AGE_DAYS signs nobody in until its user signs in once (api/auth/personalToken.ts).
-- Existing tokens start their count now.
ALTER TABLE personal_access_tokens ADD COLUMN IF NOT EXISTS identity_at timestamptz NOT NULL DEFAULT now();
