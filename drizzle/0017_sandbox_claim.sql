-- Issue 39: taking a sandbox for a user is one statement. The function takes the sandboxes' advisory lock, then
-- (each statement of a PL/pgSQL function reading with a snapshot taken after the lock) counts, refuses over
-- either bound, takes the oldest pool member or inserts the cold row. Same rules as the transaction it replaces
-- (lib/db/queries/sandboxes.ts, claimSandboxForUser), in one round trip instead of seven.
CREATE OR REPLACE FUNCTION sitewright_claim_sandbox(
  p_user_id text,
  p_site_id text,
  p_max integer,
  p_max_per_user integer,
  p_now timestamptz,
  p_expires_at timestamptz,
  p_cold_id text,
  p_image_tag text
) RETURNS TABLE (outcome text, sandbox_id text, active integer)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_active integer;
  v_held integer;
  v_id text;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('sitewright.sandboxes'));
  SELECT count(*)::int INTO v_active FROM sandboxes WHERE status IN ('starting', 'ready');
  IF v_active >= p_max THEN
    RETURN QUERY SELECT 'capacity_service'::text, NULL::text, v_active;
    RETURN;
  END IF;
  SELECT count(*)::int INTO v_held FROM sandboxes WHERE status IN ('starting', 'ready') AND user_id = p_user_id;
  IF v_held >= p_max_per_user THEN
    RETURN QUERY SELECT 'capacity_user'::text, NULL::text, v_held;
    RETURN;
  END IF;
  UPDATE sandboxes
     SET status = 'ready', user_id = p_user_id, site_id = p_site_id, from_pool = true,
         acquired_at = p_now, last_used_at = p_now, expires_at = p_expires_at
   WHERE id = (
           SELECT id FROM sandboxes WHERE status = 'pooled' ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED
         )
     AND status = 'pooled'
  RETURNING id INTO v_id;
  IF v_id IS NOT NULL THEN
    RETURN QUERY SELECT 'pooled'::text, v_id, v_active;
    RETURN;
  END IF;
  INSERT INTO sandboxes (id, status, user_id, site_id, image_tag, from_pool, created_at, acquired_at, last_used_at, expires_at)
  VALUES (p_cold_id, 'starting', p_user_id, p_site_id, p_image_tag, false, p_now, p_now, p_now, p_expires_at);
  RETURN QUERY SELECT 'cold'::text, p_cold_id, v_active;
END;
$$;
