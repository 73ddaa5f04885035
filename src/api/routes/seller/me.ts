import type { RouteModule } from '../../app.js';
import type { AppDeps } from '../../deps.js';
import { ApiError, ok } from '../../envelope.js';
import { parseOr400 } from '../../validate.js';
import { sellerAuth, sellerOf } from '../../middleware/auth.js';
import { sellerRateLimit } from '../../middleware/rate-limit.js';
import { patchMeBodySchema, PREREQUISITE_CODES, type Prerequisite, type PrerequisiteCode, type StoreStatus } from '../../../contract/seller.js';
import { readStoreStatus, setVacation, type StoreStatusRow } from '../../../db/store-status.js';

// GET /me and PATCH /me: store status, counts and readiness. Vacation is the only thing a
// Platform can change here; every other prerequisite is completed elsewhere (seller dashboard,
// operator), so its action points back at GET /me to re-check once done.

type Action = Prerequisite['action'];
const recheck = (type: string): Action => ({ type, method: 'GET', href: '/me' });

const PREREQUISITES: Record<PrerequisiteCode, (row: StoreStatusRow) => { message: string; action: Action }> = {
  SELLER_ACTIVE: () => ({
    message: 'The store is suspended; listings are hidden until the marketplace reinstates it.',
    action: recheck('contact_support'),
  }),
  VACATION_DISABLED: () => ({
    message: 'The store is on vacation; turn vacation off to show listings to buyers again.',
    action: { type: 'toggle_vacation', method: 'PATCH', href: '/me' },
  }),
  SHIPPING_OPTION_CONFIGURED: () => ({
    message: 'No shipping option is configured; add at least one in the seller dashboard.',
    action: recheck('configure_shipping'),
  }),
  CONNECTED_ACCOUNT_CANADIAN: () => ({
    message: 'The connected payment account must be a Canadian account.',
    action: recheck('connect_payment_account'),
  }),
  PAYOUTS_READY: () => ({
    message: 'Payouts are not enabled on the connected payment account; finish the payout setup.',
    action: recheck('complete_payout_setup'),
  }),
  CURRENT_SELLER_TERMS_ACCEPTED: (row) => ({
    message:
      row.termsVersion === null
        ? `The current seller terms (${row.currentTermsVersion}) have not been accepted.`
        : `The seller accepted terms ${row.termsVersion}; the current seller terms (${row.currentTermsVersion}) must be accepted.`,
    action: recheck('accept_seller_terms'),
  }),
  TAX_PROFILE_COMPLETE: () => ({
    message: 'The tax profile is incomplete; complete it in the seller dashboard.',
    action: recheck('complete_tax_profile'),
  }),
  CANADIAN_SHIPMENT_ORIGIN_CONFIRMED: () => ({
    message: 'Confirm that shipments originate in Canada.',
    action: recheck('confirm_shipment_origin'),
  }),
  AUTHENTICATOR_ENROLLED: () => ({
    message: 'Enroll an authenticator app for two-step sign-in.',
    action: recheck('enroll_authenticator'),
  }),
  AUTHENTICATOR_RECOVERY_VERIFIED: () => ({
    message: 'Verify the authenticator recovery codes.',
    action: recheck('verify_authenticator_recovery'),
  }),
  OPERATOR_REVIEW_APPROVED: () => ({
    message: 'The store is waiting for the marketplace operator review.',
    action: recheck('await_operator_review'),
  }),
  SHOP_LINK_ACTIVE: () => ({
    message: 'The shop link is not active; activate it in the seller dashboard.',
    action: recheck('activate_shop_link'),
  }),
  BILLING_TERMS_ACCEPTED: () => ({
    message: 'The billing terms have not been accepted.',
    action: recheck('accept_billing_terms'),
  }),
};

const isCode = (c: string): c is PrerequisiteCode => (PREREQUISITE_CODES as readonly string[]).includes(c);

export function toStoreStatus(row: StoreStatusRow): StoreStatus {
  const incomplete = row.incomplete.filter(isCode);
  const browseEligible = row.incomplete.length === 0;
  return {
    sellerCode: row.sellerCode,
    storeName: row.storeName,
    currency: row.currency,
    region: row.region,
    active: row.active,
    vacation: row.vacation,
    counts: {
      total: row.total,
      matched: row.matched,
      unmatched: row.total - row.matched,
      browsable: browseEligible ? row.matched : 0,
    },
    readiness: {
      browseEligible,
      effectiveTermsVersion: row.termsVersion ?? '',
      incompletePrerequisites: incomplete.map((code) => ({ code, ...PREREQUISITES[code](row) })),
    },
  };
}

async function storeStatus(deps: AppDeps, sellerId: number): Promise<StoreStatus> {
  const row = await readStoreStatus(deps.pool, sellerId);
  // The key was valid a moment ago; a seller deleted in between is as good as an invalid key.
  if (!row) throw new ApiError(401, 'UNAUTHORIZED', 'Missing or invalid API key');
  return toStoreStatus(row);
}

export const sellerMeRoutes: RouteModule = (app, deps) => {
  const guard = [sellerAuth(deps), sellerRateLimit(deps)];

  app.get('/me', ...guard, async (req, res) => {
    res.json(ok(await storeStatus(deps, sellerOf(req).sellerId)));
  });

  app.patch('/me', ...guard, async (req, res) => {
    const body = parseOr400(patchMeBodySchema, req.body);
    const sellerId = sellerOf(req).sellerId;
    await setVacation(deps.pool, sellerId, body.vacation);
    res.json(ok(await storeStatus(deps, sellerId)));
  });
};
