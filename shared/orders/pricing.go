package orders

import (
	"github.com/bookplatform/backend/shared/config"
)

// Fulfilment is how a store's part of an order reaches the buyer.
type Fulfilment string

// The fulfilments.
const (
	// Ship sends the part to the order's shipping address, at the
	// part's shipping cost.
	Ship Fulfilment = "ship"
	// Pickup: the buyer collects the part at the store; no shipping
	// cost, no shipping address needed for it.
	Pickup Fulfilment = "pickup"
)

// Valid reports whether f is Ship or Pickup.
func (f Fulfilment) Valid() bool { return f == Ship || f == Pickup }

// Pricing is how shipping is charged, from configuration (Settings):
// per store shipment that ships, Base for its first copy and PerCopy
// for each further one, nothing when its subtotal reaches FreeFrom (0:
// never free). Tax is the store's own rate (stores.Store.TaxRateMicros).
type Pricing struct {
	BaseCents     int64
	PerCopyCents  int64
	FreeFromCents int64
}

// Configuration variables of pricing, read by the groups that price
// orders (orders: creation and preview).
const (
	EnvShippingBaseCents    = "ORDER_SHIPPING_BASE_CENTS"
	EnvShippingPerCopyCents = "ORDER_SHIPPING_PER_COPY_CENTS"
	EnvFreeShippingCents    = "ORDER_FREE_SHIPPING_FROM_CENTS"
)

// DefaultPricing: $4.99 a shipment and $1.00 each further copy, never
// free.
var DefaultPricing = Pricing{BaseCents: 499, PerCopyCents: 100}

// PricingFrom reads Pricing from env (each at most $1,000).
func PricingFrom(env *config.Env) Pricing {
	return Pricing{
		BaseCents:     env.Int(EnvShippingBaseCents, DefaultPricing.BaseCents, 0, 100_000),
		PerCopyCents:  env.Int(EnvShippingPerCopyCents, DefaultPricing.PerCopyCents, 0, 100_000),
		FreeFromCents: env.Int(EnvFreeShippingCents, DefaultPricing.FreeFromCents, 0, 100_000_000),
	}
}

// Line is one line of a store shipment: copies at a unit price.
type Line struct {
	Quantity   int64
	PriceCents int64
}

// Shipment is one store's part of an order as priced: its lines, its
// fulfilment and its store's tax rate in millionths (82500 is 8.25%).
type Shipment struct {
	Lines         []Line
	Fulfilment    Fulfilment
	TaxRateMicros int64
}

// Totals are an amount's parts in integer cents: Subtotal + Shipping +
// Tax == Total, always.
type Totals struct {
	SubtotalCents int64 `json:"subtotalCents"`
	ShippingCents int64 `json:"shippingCents"`
	TaxCents      int64 `json:"taxCents"`
	TotalCents    int64 `json:"totalCents"`
}

// Add is t and u added part by part.
func (t Totals) Add(u Totals) Totals {
	return Totals{t.SubtotalCents + u.SubtotalCents, t.ShippingCents + u.ShippingCents,
		t.TaxCents + u.TaxCents, t.TotalCents + u.TotalCents}
}

// Price is a shipment's totals: its lines' subtotal; its shipping
// (Pickup: none; Ship: Base plus PerCopy for each copy after the first,
// none once the subtotal reaches FreeFrom); and its tax, the store's
// rate of the subtotal and shipping (shipping is taxed where the store
// is), rounded half up to the cent once per shipment. Integer
// arithmetic only: no amount passes through floating point.
func (p Pricing) Price(s Shipment) Totals {
	var t Totals
	var copies int64
	for _, l := range s.Lines {
		t.SubtotalCents += l.Quantity * l.PriceCents
		copies += l.Quantity
	}
	if s.Fulfilment != Pickup && copies > 0 && (p.FreeFromCents == 0 || t.SubtotalCents < p.FreeFromCents) {
		t.ShippingCents = p.BaseCents + (copies-1)*p.PerCopyCents
	}
	t.TaxCents = ((t.SubtotalCents+t.ShippingCents)*s.TaxRateMicros + 500_000) / 1_000_000
	t.TotalCents = t.SubtotalCents + t.ShippingCents + t.TaxCents
	return t
}

// PriceAll is the totals of an order of these shipments: each priced on
// its own (Price), then added, so an order's totals are its shipments'
// sums exactly.
func (p Pricing) PriceAll(ss []Shipment) (Totals, []Totals) {
	var sum Totals
	each := make([]Totals, len(ss))
	for i, s := range ss {
		each[i] = p.Price(s)
		sum = sum.Add(each[i])
	}
	return sum, each
}
