// Package orders is the orders domain: a reader's order of books from one
// or several stores, split into one part per store (shipped to the
// order's address or picked up at the store), its totals (Pricing), its
// states and the events of its changes. It imports no AWS and no HTTP
// package; storage is shared/dynamo's, payment shared/payments'.
package orders
