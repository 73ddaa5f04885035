-- Up Migration

-- The one definition of the browse gate's seller half (DECISIONS.md "Browse gates and stock"):
-- a seller is browse-eligible when no prerequisite is incomplete. Listed in the contract's order.
CREATE VIEW seller_readiness AS
SELECT s.seller_id,
       ARRAY(
         SELECT c.code
           FROM unnest(ARRAY[
                  'SELLER_ACTIVE', 'VACATION_DISABLED', 'SHIPPING_OPTION_CONFIGURED', 'CONNECTED_ACCOUNT_CANADIAN',
                  'PAYOUTS_READY', 'CURRENT_SELLER_TERMS_ACCEPTED', 'TAX_PROFILE_COMPLETE',
                  'CANADIAN_SHIPMENT_ORIGIN_CONFIRMED', 'AUTHENTICATOR_ENROLLED', 'AUTHENTICATOR_RECOVERY_VERIFIED',
                  'OPERATOR_REVIEW_APPROVED', 'SHOP_LINK_ACTIVE', 'BILLING_TERMS_ACCEPTED'
                ]) WITH ORDINALITY AS c(code, ord)
          WHERE (c.code = 'SELLER_ACTIVE' AND NOT s.active)
             OR (c.code = 'VACATION_DISABLED' AND s.vacation)
             OR (c.code = 'CURRENT_SELLER_TERMS_ACCEPTED' AND s.terms_version IS DISTINCT FROM ps.current_terms_version)
             OR EXISTS (SELECT 1 FROM seller_prerequisites p WHERE p.seller_id = s.seller_id AND p.code = c.code)
          ORDER BY c.ord
       ) AS incomplete
  FROM sellers s
 CROSS JOIN platform_settings ps;

-- Down Migration
DROP VIEW IF EXISTS seller_readiness;
