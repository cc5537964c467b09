package app

import "github.com/bookplatform/backend/shared/httpapi"

// Function is one Lambda: its directory under functions/, the routes it
// serves and exactly the AWS actions it calls. The CDK stack creates the
// function, its API Gateway routes and its grants from this list.
type Function struct {
	Name   string
	Routes []httpapi.Route
	// Fallback marks the function serving API Gateway's $default route:
	// unknown paths and methods get the router's 404/405 envelope.
	Fallback bool
	// Authorizer marks the API Gateway Lambda authorizer.
	Authorizer bool
	// TableActions are the DynamoDB actions on the table and its indexes.
	TableActions []string
	// MediaActions are the S3 actions on objects of the media bucket.
	MediaActions []string
}

// Actions every HTTP function needs: the caller read and the rate-limit counter.
var requestActions = []string{"dynamodb:GetItem", "dynamodb:UpdateItem"}

// Functions lists every Lambda of the service.
func Functions() []Function {
	groups := map[string]httpapi.Group{}
	for _, g := range Groups(nil) {
		groups[g.Name] = g
	}
	return []Function{
		// health reads nothing: /health is unmetered and the fallback runs no
		// other group's handler (FallbackRouter).
		{Name: "health", Routes: groups["health"].Routes, Fallback: true},
		{Name: "auth", Routes: groups["auth"].Routes, TableActions: append(append([]string{}, requestActions...),
			"dynamodb:PutItem", "dynamodb:DeleteItem", "dynamodb:Query", "dynamodb:TransactWriteItems")},
		{Name: "users", Routes: groups["users"].Routes, TableActions: append(append([]string{}, requestActions...),
			"dynamodb:PutItem", "dynamodb:DeleteItem", "dynamodb:Query", "dynamodb:TransactWriteItems"),
			MediaActions: []string{"s3:PutObject"}},
		// books only reads: GetItem for a book, Query for search postings
		// and for a book by ISBN (GSI1), BatchGetItem for a result page.
		// The catalog is written by the importer, not by this function.
		{Name: "books", Routes: groups["books"].Routes, TableActions: append(append([]string{}, requestActions...),
			"dynamodb:Query", "dynamodb:BatchGetItem")},
		// reviews: BatchGetItem for a book with the caller's review claim,
		// a review with the caller's like and isLiked on a page; Query for
		// the lists and a deleted review's likes; TransactWriteItems (and
		// the Put, Update and Delete inside them) for reviews with the
		// book's statistics, likes and the quota; BatchWriteItem to remove
		// a deleted review's likes.
		{Name: "reviews", Routes: groups["reviews"].Routes, TableActions: append(append([]string{}, requestActions...),
			"dynamodb:PutItem", "dynamodb:DeleteItem", "dynamodb:Query", "dynamodb:BatchGetItem",
			"dynamodb:BatchWriteItem", "dynamodb:TransactWriteItems")},
		// lines: GetItem for a line, a reply or a username claim;
		// BatchGetItem for authors, books and isLiked; Query for the two
		// lists (GSI1, GSI2), replies and a deleted line's replies and
		// likes; TransactWriteItems (and the Put, Update and Delete inside
		// them) for lines, replies and likes with their counters and the
		// quota; BatchWriteItem to remove a deleted line's replies and likes.
		{Name: "lines", Routes: groups["lines"].Routes, TableActions: append(append([]string{}, requestActions...),
			"dynamodb:PutItem", "dynamodb:DeleteItem", "dynamodb:Query", "dynamodb:BatchGetItem",
			"dynamodb:BatchWriteItem", "dynamodb:TransactWriteItems")},
		{Name: "authorizer", Authorizer: true},
	}
}
