ALTER TABLE "sites" ADD COLUMN "repairs_site_id" text;--> statement-breakpoint
-- Before this migration each pairing made a new site row, so a re-paired site's history sat on its older rows.
-- Each user's confirmed rows of one URL fold into one site (the active one, else the newest): the others point
-- at it and are revoked, and everything recorded under their ids moves to it (docs/api.md, "Re-pairing").
UPDATE "sites" AS s SET "repairs_site_id" = r."survivor", "status" = 'revoked', "credentials" = NULL,
  "revoked_at" = coalesce(s."revoked_at", now())
FROM (
  SELECT "id", first_value("id") OVER (
    PARTITION BY "user_id", "url" ORDER BY ("status" = 'active') DESC, "created_at" DESC, "id"
  ) AS "survivor"
  FROM "sites" WHERE "confirmed_at" IS NOT NULL
) AS r
WHERE s."id" = r."id" AND r."id" <> r."survivor";--> statement-breakpoint
UPDATE "change_sets" AS t SET "site_id" = s."repairs_site_id" FROM "sites" AS s
WHERE t."site_id" = s."id" AND s."repairs_site_id" IS NOT NULL;--> statement-breakpoint
UPDATE "change_audit" AS t SET "site_id" = s."repairs_site_id" FROM "sites" AS s
WHERE t."site_id" = s."id" AND s."repairs_site_id" IS NOT NULL;--> statement-breakpoint
UPDATE "conversations" AS t SET "site_id" = s."repairs_site_id" FROM "sites" AS s
WHERE t."site_id" = s."id" AND s."repairs_site_id" IS NOT NULL;--> statement-breakpoint
UPDATE "tool_audit" AS t SET "site_id" = s."repairs_site_id" FROM "sites" AS s
WHERE t."site_id" = s."id" AND s."repairs_site_id" IS NOT NULL;--> statement-breakpoint
UPDATE "tool_approvals" AS t SET "site_id" = s."repairs_site_id" FROM "sites" AS s
WHERE t."site_id" = s."id" AND s."repairs_site_id" IS NOT NULL;--> statement-breakpoint
UPDATE "sandboxes" AS t SET "site_id" = s."repairs_site_id" FROM "sites" AS s
WHERE t."site_id" = s."id" AND s."repairs_site_id" IS NOT NULL;--> statement-breakpoint
UPDATE "sandbox_manifests" AS t SET "source_site_id" = s."repairs_site_id" FROM "sites" AS s
WHERE t."source_site_id" = s."id" AND s."repairs_site_id" IS NOT NULL;--> statement-breakpoint
UPDATE "oauth_grants" AS g SET "site_ids" = (
  SELECT coalesce(jsonb_agg(DISTINCT coalesce(s."repairs_site_id", e.value #>> '{}')), '[]'::jsonb)
  FROM jsonb_array_elements(g."site_ids") AS e LEFT JOIN "sites" AS s ON s."id" = e.value #>> '{}'
)
WHERE EXISTS (
  SELECT 1 FROM jsonb_array_elements(g."site_ids") AS e JOIN "sites" AS s ON s."id" = e.value #>> '{}'
  WHERE s."repairs_site_id" IS NOT NULL
);
