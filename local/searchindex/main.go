// Command searchindex creates the catalog's OpenSearch index (its
// mapping, shared/booksearch/opensearch/index.json) when it does not
// exist and writes every book of the table into it, 500 to a bulk
// request: the backfill to run before a deployment switches to
// SEARCH_ENGINE=opensearch, and again whenever the index may have missed
// changes (nothing feeds it from the catalog yet: README, "Catalog search
// on OpenSearch"). Writing a book again replaces its document, so
// running it twice is harmless.
//
//	go run ./local/searchindex -endpoint https://<id>.<region>.aoss.amazonaws.com             # the local run's table
//	TABLE_NAME=... go run ./local/searchindex -aws -endpoint https://<id>.<region>.aoss.amazonaws.com
//
// Requests to the collection are signed (SigV4, service aoss) with the
// SDK's usual credential chain and region; the caller's role must be
// named in the collection's data access policy. The table is chosen as
// local/backfillrefs chooses it. It was not run against a real collection
// where it was written (no OpenSearch server runs there).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/bookplatform/backend/local/tabletarget"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/booksearch"
	"github.com/bookplatform/backend/shared/booksearch/opensearch"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
)

// bulkBooks is how many books go in one bulk request: about half a
// megabyte of documents, well under a collection's request limit.
const bulkBooks = 500

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "searchindex:", err)
		os.Exit(1)
	}
}

func run() error {
	table := flag.String("table", os.Getenv(config.EnvTableName), "DynamoDB table (default: TABLE_NAME, or the local run's table)")
	useAWS := flag.Bool("aws", false, "read the table in AWS when no local run and no endpoint is set")
	endpoint := flag.String("endpoint", os.Getenv(booksearch.EnvOpenSearchEndpoint), "the collection's endpoint (default: "+booksearch.EnvOpenSearchEndpoint+")")
	index := flag.String("index", os.Getenv(booksearch.EnvOpenSearchIndex), "the index (default: "+booksearch.EnvOpenSearchIndex+", or "+booksearch.DefaultIndex+")")
	flag.Parse()

	// The same names and checks as the books group's settings.
	env := config.NewEnv(func(name string) string {
		return map[string]string{booksearch.EnvEngine: booksearch.EngineOpenSearch,
			booksearch.EnvOpenSearchEndpoint: *endpoint, booksearch.EnvOpenSearchIndex: *index}[name]
	})
	settings := booksearch.ReadSettings(env)
	if err := env.Err(); err != nil {
		return err
	}

	ctx := context.Background()
	dest, err := tabletarget.Choose(*table, *useAWS)
	if err != nil {
		return err
	}
	h, err := dest.Handle(ctx)
	if err != nil {
		return err
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return fmt.Errorf("AWS configuration to sign with: %w", err)
	}
	engine, err := opensearch.New(opensearch.Config{Endpoint: settings.Endpoint, Index: settings.Index, AWS: &awsCfg}, nil)
	if err != nil {
		return err
	}
	if err := engine.CreateIndex(ctx); err != nil {
		return err
	}
	n, err := dynamo.NewBooks(h).ScanBooks(ctx, bulkBooks, func(bs []*books.Book) error {
		if err := engine.IndexBooks(ctx, bs); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "indexed %d more books\n", len(bs))
		return nil
	})
	fmt.Printf("indexed %d books of %s (%s) into %s/%s\n", n, dest.Table, dest.Where, settings.Endpoint, settings.Index)
	return err
}
