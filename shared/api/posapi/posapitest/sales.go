package posapitest

import "github.com/bookplatform/backend/shared/api/apitest"

// saleFacts: SKELETON, the sales helper replaces this file.
func saleFacts() apitest.Facts { return apitest.Facts{} }
