package adminapitest

import "github.com/bookplatform/backend/shared/api/apitest"

// moneyFacts: this area's steps and actions (to be built: issue 22).
func moneyFacts() apitest.Facts { return apitest.Facts{} }
