package posapitest

import "github.com/bookplatform/backend/shared/api/apitest"

// reportFacts: SKELETON, the reports helper replaces this file.
func reportFacts() apitest.Facts { return apitest.Facts{} }
