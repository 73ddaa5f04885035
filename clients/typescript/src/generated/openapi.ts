// Generated from the OpenAPI document the API serves (GET /openapi.json) by
// clients/typescript/codegen (npm run client:types). Do not edit: regenerate.

/** The dated API version the document describes (sent as X-Service-Api-Version). */
export const API_VERSION = '2026-07';

export interface Components {
  Error: {
    success: false;
    error: {
      code: string;
      message: string;
      details?: unknown;
    };
  };
}

export interface Operations {
  /** Every shown offer of one product, cheapest first, and the Product block */
  'GET /products/{productId}': {
    path: {
      productId: string;
    };
    query: {
      condition?: string | string[];
      language?: string | string[];
      finish?: string | string[];
      /** Page size, 1 to 100; default 50 */
      limit?: number;
      offset?: string | 'null' | '';
    };
    body: never;
    bodyRequired: false;
    response: {
      success: true;
      /** Present only in Degraded Mode */
      degraded?: true;
      data: {
        offers: {
          lane: 'native' | 'handoff';
          productId: number;
          sellerId: number | null;
          storeSlug: string | null;
          variantId: number | null;
          skuId: number;
          sellerName: string | null;
          condition: string | null;
          language: string | null;
          finish: string | null;
          isSealed: boolean;
          price: number;
          available: number;
          checkoutMode: ('express' | 'manual') | null;
          salesCount: number | null;
          sellerCode: string | null;
          reviewScore: {
            score: number | null;
            count: number;
          };
          poBoxDelivery: {
            status: 'available' | 'seller_declines' | 'platform_suspended';
          } | null;
          disclosures: {
            imageSource: 'catalog';
            conditionSource: 'seller_declared';
            authenticitySource: 'seller_attestation';
            serviceInspected: false;
            serviceGraded: false;
            serviceAuthenticated: false;
            gradingStandard: 'service-magic-v1' | 'seller-declared-no-specialist-promise';
            declaredGrade: string | null;
            buyerProtection: 'magic-grade-and-authenticity' | 'genuine-and-as-described';
          } | null;
          fulfillmentObligation: {
            sku: 'exact';
            printing: 'exact';
            language: 'exact';
            finish: 'exact';
            condition: 'declared-or-better';
          } | null;
        }[];
        product: {
          productId: number;
          name: string | null;
          set: string | null;
          rarity: string | null;
          collectorNumber: string | null;
          imageUrl: string | null;
          details: {
            label: string;
            value: string;
          }[];
        } | null;
      };
    };
  };
  /** Products with shown offers matching the filters, with disjunctive facets and a cursor */
  'GET /search': {
    path: never;
    query: {
      /** Every term must match a term of the product name */
      keyword?: string;
      category?: string;
      set?: string;
      rarity?: string;
      sellerCode?: string;
      condition?: string | string[];
      language?: string | string[];
      finish?: string | string[];
      collectorNumber?: string | string[];
      checkoutMode?: 'express' | 'manual' | 'any';
      sort?: 'name' | 'name_desc';
      /** Page size, 1 to 100; default 24 */
      limit?: number;
      cursor?: string;
    };
    body: never;
    bodyRequired: false;
    response: {
      success: true;
      /** Present only in Degraded Mode */
      degraded?: true;
      data: {
        items: {
          productId: number;
          name: string | null;
          set: string | null;
          category: string | null;
          rarity: string | null;
          collectorNumber: string | null;
          imageUrl: string | null;
          isSealed: boolean;
          fromPrice: number;
          sellerCount: number;
          disclosures: {
            imageSource: 'catalog';
            conditionSource: 'seller_declared';
            authenticitySource: 'seller_attestation';
            serviceInspected: false;
            serviceGraded: false;
            serviceAuthenticated: false;
            gradingStandard: 'service-magic-v1' | 'seller-declared-no-specialist-promise';
            declaredGrade: string | null;
            buyerProtection: 'magic-grade-and-authenticity' | 'genuine-and-as-described';
          } | null;
          fulfillmentObligation: {
            sku: 'exact';
            printing: 'exact';
            language: 'exact';
            finish: 'exact';
            condition: 'declared-or-better';
          } | null;
        }[];
        facets: {
          category: {
            value: string;
            count: number;
          }[];
          set: {
            value: string;
            count: number;
          }[];
          rarity: {
            value: string;
            count: number;
          }[];
          condition: {
            value: string;
            count: number;
          }[];
          language: {
            value: string;
            count: number;
          }[];
          finish: {
            value: string;
            count: number;
          }[];
          collectorNumber: {
            value: string;
            count: number;
          }[];
          seller: {
            sellerCode: string;
            storeName: string;
            count: number;
          }[];
        };
        nextCursor: string | null;
      };
    };
  };
  /** Product names completing what a buyer types, typo-tolerant, with their /search totals, and a correction when the text lists nothing */
  'GET /search/suggest': {
    path: never;
    query: {
      /** What the buyer has typed so far: 1 to 100 characters after trimming */
      q: string;
      /** Completions, 1 to 10; default 8 */
      limit?: number;
      category?: string;
      sellerCode?: string;
    };
    body: never;
    bodyRequired: false;
    response: {
      success: true;
      /** Present only in Degraded Mode */
      degraded?: true;
      data: {
        /** Fewer typos first, then whole words before prefixes, then more products, then name */
        completions: {
          /** A product name, as it is written */
          text: string;
          /** Products GET /search?keyword=<text> lists in the same scope */
          productCount: number;
        }[];
        /** When GET /search?keyword=<q> lists nothing: the closest spelling that lists products, else null */
        correction: string | null;
      };
    };
  };
  /** Cart line lookup: one result per (sellerId, skuId) pair, in request order */
  'POST /lines/lookup': {
    path: never;
    query: never;
    body: {
      lines: {
        sellerId: number;
        skuId: number;
      }[];
    };
    bodyRequired: true;
    response: {
      success: true;
      /** Present only in Degraded Mode */
      degraded?: true;
      data: {
        lines: {
          sellerId: number;
          skuId: number;
          seller: {
            name: string;
          } | null;
          product: {
            productId: number;
            name: string | null;
            set: string | null;
            image: string | null;
          } | null;
          sku: {
            condition: string | null;
            language: string | null;
            finish: string | null;
          } | null;
          currentPrice: number | null;
          available: number;
          sellerUnavailable?: {
            sellerId: number;
            reason: 'SELLER_ON_VACATION' | 'SELLER_UNAVAILABLE';
          };
          policy?: {
            status: 'eligible' | 'blocked';
            error: {
              code: string;
              message: string;
              action: string;
            } | null;
          };
          disclosures?: {
            imageSource: 'catalog';
            conditionSource: 'seller_declared';
            authenticitySource: 'seller_attestation';
            serviceInspected: false;
            serviceGraded: false;
            serviceAuthenticated: false;
            gradingStandard: 'service-magic-v1' | 'seller-declared-no-specialist-promise';
            declaredGrade: string | null;
            buyerProtection: 'magic-grade-and-authenticity' | 'genuine-and-as-described';
          } | null;
          fulfillmentObligation?: {
            sku: 'exact';
            printing: 'exact';
            language: 'exact';
            finish: 'exact';
            condition: 'declared-or-better';
          } | null;
        }[];
      };
    };
  };
  /** Desired-state upsert of one listing or an array of listings */
  'POST /listings': {
    path: never;
    query: never;
    body:
      | {
          /** Optional here; only `upsert` is meaningful on POST /listings */
          op?: 'upsert';
          /** Canonical catalog sku id (exclusive minimum 0) */
          skuId: number;
          /** Canonical catalog product id; must agree with the catalog sku when the sku is known. Required for a new listing */
          productId?: number;
          /** Minor units in the seller's currency (minimum 0). Required for a new listing */
          price?: number;
          /** On-hand quantity; negative is rejected. Required for a new listing */
          quantity?: number;
          /** The Platform's own reference, echoed on orders. Omitted keeps the stored value; null clears it */
          externalRef?: string | null;
          /** When the Platform's stock snapshot was taken. A write whose asOf is earlier than the stored listing's asOf is stale and rejected; omitted keeps the stored value and is never stale */
          asOf?: string;
        }
      | {
          /** Optional here; only `upsert` is meaningful on POST /listings */
          op?: 'upsert';
          /** Canonical catalog sku id (exclusive minimum 0) */
          skuId: number;
          /** Canonical catalog product id; must agree with the catalog sku when the sku is known. Required for a new listing */
          productId?: number;
          /** Minor units in the seller's currency (minimum 0). Required for a new listing */
          price?: number;
          /** On-hand quantity; negative is rejected. Required for a new listing */
          quantity?: number;
          /** The Platform's own reference, echoed on orders. Omitted keeps the stored value; null clears it */
          externalRef?: string | null;
          /** When the Platform's stock snapshot was taken. A write whose asOf is earlier than the stored listing's asOf is stale and rejected; omitted keeps the stored value and is never stale */
          asOf?: string;
        }[];
    bodyRequired: true;
    response: {
      success: true;
      data: {
        /** One result per request item, in request order */
        results: {
          /** The item's skuId; 0 when the item carried no usable integer skuId */
          skuId: number;
          op: 'upsert' | 'delete';
          /** `applied`; `unmatched` (UNMATCHED: persisted, sku not in the catalog, not browsable); `rejected` (REJECTED: not persisted, see reason) */
          status: 'applied' | 'unmatched' | 'rejected';
          /** Present only when status is `rejected` */
          reason?: string;
          /** Echo of the pushed externalRef when one was supplied */
          externalRef?: string;
        }[];
      };
    };
  };
  /** Export of the stored listings, keyset-paginated on (updatedAt, id) */
  'GET /listings': {
    path: never;
    query: {
      /** Page size, 1 to 1000; default 100 */
      limit?: number;
      /** nextCursor of the previous page */
      cursor?: string;
      /** Only listings updated at or after this instant (inclusive) */
      updated_since?: string;
      /** Include soft-deleted listings; default false */
      include_deleted?: 'true' | 'false';
    };
    body: never;
    bodyRequired: false;
    response: {
      success: true;
      data: {
        items: {
          skuId: number;
          productId: number;
          matchStatus: 'matched' | 'unmatched';
          /** On-hand quantity as pushed */
          quantity: number;
          /** quantity minus outstanding holds, never negative */
          available: number;
          /** Minor units in the seller's currency */
          price: number;
          externalRef: string | null;
          /** Seller browse-eligible, listing live and matched */
          browsable: boolean;
          /** Soft-delete instant; null while live */
          deletedAt: string | null;
          updatedAt: string;
        }[];
        /** Cursor of the next page; null on the last page */
        nextCursor: string | null;
      };
    };
  };
  /** Bulk upsert/delete of up to 1000 listings */
  'POST /listings/bulk': {
    path: never;
    query: never;
    body: {
      items: (
        | {
            /** Create or update the listing */
            op: 'upsert';
            /** Canonical catalog sku id (exclusive minimum 0) */
            skuId: number;
            /** Canonical catalog product id; must agree with the catalog sku when the sku is known. Required for a new listing */
            productId?: number;
            /** Minor units in the seller's currency (minimum 0). Required for a new listing */
            price?: number;
            /** On-hand quantity; negative is rejected. Required for a new listing */
            quantity?: number;
            /** The Platform's own reference, echoed on orders. Omitted keeps the stored value; null clears it */
            externalRef?: string | null;
            /** When the Platform's stock snapshot was taken. A write whose asOf is earlier than the stored listing's asOf is stale and rejected; omitted keeps the stored value and is never stale */
            asOf?: string;
          }
        | {
            /** Soft-delete the listing (absent or already deleted: still applied) */
            op: 'delete';
            /** Canonical catalog sku id (exclusive minimum 0) */
            skuId: number;
            /** The Platform's own reference, echoed on orders. Omitted keeps the stored value; null clears it */
            externalRef?: string | null;
            /** When the Platform's stock snapshot was taken. A write whose asOf is earlier than the stored listing's asOf is stale and rejected; omitted keeps the stored value and is never stale */
            asOf?: string;
          }
      )[];
    };
    bodyRequired: true;
    response: {
      success: true;
      data: {
        /** One result per request item, in request order */
        results: {
          /** The item's skuId; 0 when the item carried no usable integer skuId */
          skuId: number;
          op: 'upsert' | 'delete';
          /** `applied`; `unmatched` (UNMATCHED: persisted, sku not in the catalog, not browsable); `rejected` (REJECTED: not persisted, see reason) */
          status: 'applied' | 'unmatched' | 'rejected';
          /** Present only when status is `rejected` */
          reason?: string;
          /** Echo of the pushed externalRef when one was supplied */
          externalRef?: string;
        }[];
      };
    };
  };
  /** Soft-delete every live listing of the seller */
  'POST /listings/purge': {
    path: never;
    query: never;
    body: never;
    bodyRequired: false;
    response: {
      success: true;
      data: {
        /** Number of live listings soft-deleted */
        purged: number;
      };
    };
  };
  /** Store status, counts and readiness */
  'GET /me': {
    path: never;
    query: never;
    body: never;
    bodyRequired: false;
    response: {
      success: true;
      data: {
        sellerCode: string;
        storeName: string;
        /** ISO 4217 */
        currency: string;
        /** Market region */
        region: string;
        /** False while the seller is suspended */
        active: boolean;
        /** True while all listings are hidden from browse */
        vacation: boolean;
        counts: {
          /** Live listings */
          total: number;
          matched: number;
          unmatched: number;
          /** Live matched listings while browse-eligible; 0 otherwise */
          browsable: number;
        };
        readiness: {
          browseEligible: boolean;
          /** The seller's accepted terms version; empty string when none was accepted */
          effectiveTermsVersion: string;
          /** In the contract order */
          incompletePrerequisites: {
            code:
              | 'SELLER_ACTIVE'
              | 'VACATION_DISABLED'
              | 'SHIPPING_OPTION_CONFIGURED'
              | 'CONNECTED_ACCOUNT_CANADIAN'
              | 'PAYOUTS_READY'
              | 'CURRENT_SELLER_TERMS_ACCEPTED'
              | 'TAX_PROFILE_COMPLETE'
              | 'CANADIAN_SHIPMENT_ORIGIN_CONFIRMED'
              | 'AUTHENTICATOR_ENROLLED'
              | 'AUTHENTICATOR_RECOVERY_VERIFIED'
              | 'OPERATOR_REVIEW_APPROVED'
              | 'SHOP_LINK_ACTIVE'
              | 'BILLING_TERMS_ACCEPTED';
            message: string;
            action: {
              /** What to do, e.g. toggle_vacation */
              type: string;
              method: 'GET' | 'POST' | 'PATCH';
              /** Relative API path */
              href: string;
            };
          }[];
        };
      };
    };
  };
  /** Toggle vacation */
  'PATCH /me': {
    path: never;
    query: never;
    body: {
      /** true hides every listing from browse; false shows them again */
      vacation: boolean;
    };
    bodyRequired: true;
    response: {
      success: true;
      data: {
        sellerCode: string;
        storeName: string;
        /** ISO 4217 */
        currency: string;
        /** Market region */
        region: string;
        /** False while the seller is suspended */
        active: boolean;
        /** True while all listings are hidden from browse */
        vacation: boolean;
        counts: {
          /** Live listings */
          total: number;
          matched: number;
          unmatched: number;
          /** Live matched listings while browse-eligible; 0 otherwise */
          browsable: number;
        };
        readiness: {
          browseEligible: boolean;
          /** The seller's accepted terms version; empty string when none was accepted */
          effectiveTermsVersion: string;
          /** In the contract order */
          incompletePrerequisites: {
            code:
              | 'SELLER_ACTIVE'
              | 'VACATION_DISABLED'
              | 'SHIPPING_OPTION_CONFIGURED'
              | 'CONNECTED_ACCOUNT_CANADIAN'
              | 'PAYOUTS_READY'
              | 'CURRENT_SELLER_TERMS_ACCEPTED'
              | 'TAX_PROFILE_COMPLETE'
              | 'CANADIAN_SHIPMENT_ORIGIN_CONFIRMED'
              | 'AUTHENTICATOR_ENROLLED'
              | 'AUTHENTICATOR_RECOVERY_VERIFIED'
              | 'OPERATOR_REVIEW_APPROVED'
              | 'SHOP_LINK_ACTIVE'
              | 'BILLING_TERMS_ACCEPTED';
            message: string;
            action: {
              /** What to do, e.g. toggle_vacation */
              type: string;
              method: 'GET' | 'POST' | 'PATCH';
              /** Relative API path */
              href: string;
            };
          }[];
        };
      };
    };
  };
  /** Poll the seller's orders, oldest change first; never misses a change when walked from the last cursor */
  'GET /orders': {
    path: never;
    query: {
      /** Only orders changed at or after this instant (inclusive); omitted: from the first order */
      since?: string;
      /** nextCursor of the previous page (or the last cursor used, to go on later) */
      cursor?: string;
      /** Page size, 1 to 1000; default 100 */
      limit?: number;
    };
    body: never;
    bodyRequired: false;
    response: {
      success: true;
      data: {
        /** Oldest change first; each item byte-identical to the webhook data of that moment */
        items: {
          /** Opaque public id; the reconcile key */
          order_id: string;
          seller_id: number;
          /** ISO-8601 UTC instant, millisecond form */
          created_at: string;
          /** ISO 4217 */
          currency: string;
          customer: {
            name: string;
            email: string;
            shipping_address: {
              line1: string;
              line2: string | null;
              city: string;
              /** Canadian province or territory */
              province: string;
              /** Canadian postal code */
              postal_code: string;
              /** ISO 3166-1 alpha-2 */
              country: string;
            };
          };
          lines: {
            sku_id: number;
            product_id: number;
            /** Units still ordered (after line cancels) */
            quantity: number;
            /** Minor units in the order currency, frozen at entry */
            unit_price: number;
            /** Frozen at entry; empty string when the catalog had none */
            name: string;
            set: string;
            condition: string;
            /** Echo of the seller's listing ref; null if none */
            external_ref: string | null;
            language?: string | null;
            finish?: string | null;
            disclosures?: {
              image_source: 'catalog';
              condition_source: 'seller_declared';
              authenticity_source: 'seller_attestation';
              service_inspected: false;
              service_graded: false;
              service_authenticated: false;
              grading_standard: string;
              declared_grade: string | null;
              buyer_protection: string;
            };
            fulfillment_obligation?: {
              sku: 'exact';
              printing: 'exact';
              language: 'exact';
              finish: 'exact';
              condition: 'declared-or-better';
            };
          }[];
          /** Absent on operator orders without money; grand_total = subtotal + shipping + tax */
          totals?: {
            subtotal: number;
            shipping: number;
            tax: number;
            grand_total: number;
          };
          /** Absent if and only if totals.tax = 0 */
          tax?: {
            lines: {
              label: string;
              rate: number;
              amount: number;
            }[];
          };
          /** Frozen shipping option; absent with totals */
          shipping?: {
            method: string;
            cost: number;
          };
          buyer_notes?: string;
          /** Absent while the order is `created`; an order.created delivery never carries it */
          status?: 'accepted' | 'shipped' | 'delivered' | 'cancelled' | 'refunded';
          /** Present once tracking has been attached */
          fulfillment?: {
            tracking_company: string;
            tracking_number: string;
            tracking_url: string | null;
          };
        }[];
        /** Cursor of the next page; null on the last page */
        nextCursor: string | null;
      };
    };
  };
  /** One order (the same body as a poll item and the webhook data) */
  'GET /orders/{orderId}': {
    path: {
      /** Opaque order id (at most 255 characters) */
      orderId: string;
    };
    query: never;
    body: never;
    bodyRequired: false;
    response: {
      success: true;
      /** The shared order body: detail, poll items and order webhook data */
      data: {
        /** Opaque public id; the reconcile key */
        order_id: string;
        seller_id: number;
        /** ISO-8601 UTC instant, millisecond form */
        created_at: string;
        /** ISO 4217 */
        currency: string;
        customer: {
          name: string;
          email: string;
          shipping_address: {
            line1: string;
            line2: string | null;
            city: string;
            /** Canadian province or territory */
            province: string;
            /** Canadian postal code */
            postal_code: string;
            /** ISO 3166-1 alpha-2 */
            country: string;
          };
        };
        lines: {
          sku_id: number;
          product_id: number;
          /** Units still ordered (after line cancels) */
          quantity: number;
          /** Minor units in the order currency, frozen at entry */
          unit_price: number;
          /** Frozen at entry; empty string when the catalog had none */
          name: string;
          set: string;
          condition: string;
          /** Echo of the seller's listing ref; null if none */
          external_ref: string | null;
          language?: string | null;
          finish?: string | null;
          disclosures?: {
            image_source: 'catalog';
            condition_source: 'seller_declared';
            authenticity_source: 'seller_attestation';
            service_inspected: false;
            service_graded: false;
            service_authenticated: false;
            grading_standard: string;
            declared_grade: string | null;
            buyer_protection: string;
          };
          fulfillment_obligation?: {
            sku: 'exact';
            printing: 'exact';
            language: 'exact';
            finish: 'exact';
            condition: 'declared-or-better';
          };
        }[];
        /** Absent on operator orders without money; grand_total = subtotal + shipping + tax */
        totals?: {
          subtotal: number;
          shipping: number;
          tax: number;
          grand_total: number;
        };
        /** Absent if and only if totals.tax = 0 */
        tax?: {
          lines: {
            label: string;
            rate: number;
            amount: number;
          }[];
        };
        /** Frozen shipping option; absent with totals */
        shipping?: {
          method: string;
          cost: number;
        };
        buyer_notes?: string;
        /** Absent while the order is `created`; an order.created delivery never carries it */
        status?: 'accepted' | 'shipped' | 'delivered' | 'cancelled' | 'refunded';
        /** Present once tracking has been attached */
        fulfillment?: {
          tracking_company: string;
          tracking_number: string;
          tracking_url: string | null;
        };
      };
    };
  };
  /** Move an order forward (accepted, shipped with tracking, delivered) */
  'PATCH /orders/{orderId}/fulfillment': {
    path: {
      /** Opaque order id (at most 255 characters) */
      orderId: string;
    };
    query: never;
    body: {
      /** Target status; `cancelled` and `refunded` are not reachable here (400) */
      status: 'accepted' | 'shipped' | 'delivered';
      trackingCompany?: string;
      trackingNumber?: string;
      /** Absolute http or https URL, or null */
      trackingUrl?: string | null;
    };
    bodyRequired: true;
    response: {
      success: true;
      /** The shared order body: detail, poll items and order webhook data */
      data: {
        /** Opaque public id; the reconcile key */
        order_id: string;
        seller_id: number;
        /** ISO-8601 UTC instant, millisecond form */
        created_at: string;
        /** ISO 4217 */
        currency: string;
        customer: {
          name: string;
          email: string;
          shipping_address: {
            line1: string;
            line2: string | null;
            city: string;
            /** Canadian province or territory */
            province: string;
            /** Canadian postal code */
            postal_code: string;
            /** ISO 3166-1 alpha-2 */
            country: string;
          };
        };
        lines: {
          sku_id: number;
          product_id: number;
          /** Units still ordered (after line cancels) */
          quantity: number;
          /** Minor units in the order currency, frozen at entry */
          unit_price: number;
          /** Frozen at entry; empty string when the catalog had none */
          name: string;
          set: string;
          condition: string;
          /** Echo of the seller's listing ref; null if none */
          external_ref: string | null;
          language?: string | null;
          finish?: string | null;
          disclosures?: {
            image_source: 'catalog';
            condition_source: 'seller_declared';
            authenticity_source: 'seller_attestation';
            service_inspected: false;
            service_graded: false;
            service_authenticated: false;
            grading_standard: string;
            declared_grade: string | null;
            buyer_protection: string;
          };
          fulfillment_obligation?: {
            sku: 'exact';
            printing: 'exact';
            language: 'exact';
            finish: 'exact';
            condition: 'declared-or-better';
          };
        }[];
        /** Absent on operator orders without money; grand_total = subtotal + shipping + tax */
        totals?: {
          subtotal: number;
          shipping: number;
          tax: number;
          grand_total: number;
        };
        /** Absent if and only if totals.tax = 0 */
        tax?: {
          lines: {
            label: string;
            rate: number;
            amount: number;
          }[];
        };
        /** Frozen shipping option; absent with totals */
        shipping?: {
          method: string;
          cost: number;
        };
        buyer_notes?: string;
        /** Absent while the order is `created`; an order.created delivery never carries it */
        status?: 'accepted' | 'shipped' | 'delivered' | 'cancelled' | 'refunded';
        /** Present once tracking has been attached */
        fulfillment?: {
          tracking_company: string;
          tracking_number: string;
          tracking_url: string | null;
        };
      };
    };
  };
  /** Cancel the whole order (no body) or some lines; restocks and emits the cancel event */
  'POST /orders/{orderId}/cancel': {
    path: {
      /** Opaque order id (at most 255 characters) */
      orderId: string;
    };
    query: never;
    body: {
      /** Lines to cancel (each sku at most once); omitted cancels the whole order */
      lines?: {
        skuId: number;
        /** Units to cancel; omitted cancels the whole line */
        quantity?: number;
      }[];
    };
    bodyRequired: false;
    response: {
      success: true;
      /** The shared order body: detail, poll items and order webhook data */
      data: {
        /** Opaque public id; the reconcile key */
        order_id: string;
        seller_id: number;
        /** ISO-8601 UTC instant, millisecond form */
        created_at: string;
        /** ISO 4217 */
        currency: string;
        customer: {
          name: string;
          email: string;
          shipping_address: {
            line1: string;
            line2: string | null;
            city: string;
            /** Canadian province or territory */
            province: string;
            /** Canadian postal code */
            postal_code: string;
            /** ISO 3166-1 alpha-2 */
            country: string;
          };
        };
        lines: {
          sku_id: number;
          product_id: number;
          /** Units still ordered (after line cancels) */
          quantity: number;
          /** Minor units in the order currency, frozen at entry */
          unit_price: number;
          /** Frozen at entry; empty string when the catalog had none */
          name: string;
          set: string;
          condition: string;
          /** Echo of the seller's listing ref; null if none */
          external_ref: string | null;
          language?: string | null;
          finish?: string | null;
          disclosures?: {
            image_source: 'catalog';
            condition_source: 'seller_declared';
            authenticity_source: 'seller_attestation';
            service_inspected: false;
            service_graded: false;
            service_authenticated: false;
            grading_standard: string;
            declared_grade: string | null;
            buyer_protection: string;
          };
          fulfillment_obligation?: {
            sku: 'exact';
            printing: 'exact';
            language: 'exact';
            finish: 'exact';
            condition: 'declared-or-better';
          };
        }[];
        /** Absent on operator orders without money; grand_total = subtotal + shipping + tax */
        totals?: {
          subtotal: number;
          shipping: number;
          tax: number;
          grand_total: number;
        };
        /** Absent if and only if totals.tax = 0 */
        tax?: {
          lines: {
            label: string;
            rate: number;
            amount: number;
          }[];
        };
        /** Frozen shipping option; absent with totals */
        shipping?: {
          method: string;
          cost: number;
        };
        buyer_notes?: string;
        /** Absent while the order is `created`; an order.created delivery never carries it */
        status?: 'accepted' | 'shipped' | 'delivered' | 'cancelled' | 'refunded';
        /** Present once tracking has been attached */
        fulfillment?: {
          tracking_company: string;
          tracking_number: string;
          tracking_url: string | null;
        };
      };
    };
  };
}
