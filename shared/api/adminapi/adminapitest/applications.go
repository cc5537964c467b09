package adminapitest

import "github.com/bookplatform/backend/shared/api/apitest"

// applicationFacts: this area's steps and actions (to be built: issue 22).
func applicationFacts() apitest.Facts { return apitest.Facts{} }
