package dynamo

// temporary: defined by the orders branch; delete at merge.
//
// The four keys the order and cancel transactions write (the orders
// branch's block of keys.go), here only so that this branch compiles
// alone.

func AffiliateCommissionKey(storeID, orderID string) Key {
	return Key{StoreKey(storeID).PK, "COMMISSION#" + orderID}
}
func StoreEarningsKey(storeID string) Key { return Key{StoreKey(storeID).PK, "EARNINGS"} }
func PoolMonthTotalKey(month string) Key  { return Key{"POOLMONTH#" + month, "TOTAL"} }
func PoolMonthStoreKey(month, storeID string) Key {
	return Key{"POOLMONTH#" + month, "STORE#" + storeID}
}
