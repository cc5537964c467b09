package orders

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPrice_ShipAndPickup(t *testing.T) {
	p := DefaultPricing
	lines := []Line{{Quantity: 2, PriceCents: 1299}, {Quantity: 1, PriceCents: 850}}
	ship := p.Price(Shipment{Lines: lines, Fulfilment: Ship, TaxRateMicros: 82_500})
	// 3448 subtotal; 499 + 2*100 shipping; 8.25% of 4147 = 342.1275 → 342.
	assert.Equal(t, Totals{SubtotalCents: 3448, ShippingCents: 699, TaxCents: 342, TotalCents: 4489}, ship)
	pickup := p.Price(Shipment{Lines: lines, Fulfilment: Pickup, TaxRateMicros: 82_500})
	// 8.25% of 3448 = 284.46 → 284.
	assert.Equal(t, Totals{SubtotalCents: 3448, TaxCents: 284, TotalCents: 3732}, pickup)
}

func TestPrice_RoundsHalfUpOncePerShipment(t *testing.T) {
	p := Pricing{}
	// 10% of 5 cents is 0.5: half up is 1.
	assert.Equal(t, int64(1), p.Price(Shipment{Lines: []Line{{1, 5}}, Fulfilment: Pickup, TaxRateMicros: 100_000}).TaxCents)
	// 10% of 4 cents is 0.4: 0.
	assert.Equal(t, int64(0), p.Price(Shipment{Lines: []Line{{1, 4}}, Fulfilment: Pickup, TaxRateMicros: 100_000}).TaxCents)
}

func TestPrice_FreeFrom(t *testing.T) {
	p := Pricing{BaseCents: 499, PerCopyCents: 100, FreeFromCents: 5000}
	assert.Zero(t, p.Price(Shipment{Lines: []Line{{1, 5000}}, Fulfilment: Ship}).ShippingCents)
	assert.Equal(t, int64(499), p.Price(Shipment{Lines: []Line{{1, 4999}}, Fulfilment: Ship}).ShippingCents)
}

func TestPriceAll_SumsExactly(t *testing.T) {
	p := DefaultPricing
	sum, each := p.PriceAll([]Shipment{
		{Lines: []Line{{1, 1999}}, Fulfilment: Ship, TaxRateMicros: 82_500},
		{Lines: []Line{{3, 333}}, Fulfilment: Pickup, TaxRateMicros: 63_000},
	})
	assert.Equal(t, each[0].Add(each[1]), sum)
	assert.Equal(t, sum.SubtotalCents+sum.ShippingCents+sum.TaxCents, sum.TotalCents)
}
