package orders

import "github.com/bookplatform/backend/shared/config"

// Configuration variables of the orders' earnings, read by the groups
// that write orders (orders, and the payment webhook that cancels one).
const (
	// EnvCommissionBPS is an attributed store's commission, in basis
	// points of the order's subtotal (default 500: 5%).
	EnvCommissionBPS = "AFFILIATE_COMMISSION_BPS"
	// EnvPoolShareBPS is the monthly pool's share of an order with no
	// attribution, in basis points of its subtotal (default 200: 2%).
	EnvPoolShareBPS = "POOL_SHARE_BPS"
)

// Defaults of the earnings' rates.
const (
	DefaultCommissionBPS = 500
	DefaultPoolShareBPS  = 200
)

// SettingsFrom reads the orders' settings from env: pricing
// (PricingFrom) and the earnings' rates (each 0 to 10000 basis points).
// Amounts are integer cents times basis points over 10000, rounded down:
// no floating point.
func SettingsFrom(env *config.Env) Settings {
	return Settings{
		Pricing:       PricingFrom(env),
		CommissionBPS: env.Int(EnvCommissionBPS, DefaultCommissionBPS, 0, 10_000),
		PoolBPS:       env.Int(EnvPoolShareBPS, DefaultPoolShareBPS, 0, 10_000),
	}
}
