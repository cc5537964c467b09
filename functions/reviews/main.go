// Command reviews is the Lambda of the reviews group: reviews, their likes,
// and the review lists of a book and of a reader.
// It is only wiring (app.Start with its group's constructor, so it links
// no other group); the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/reviewsapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(reviewsapi.Group) }
