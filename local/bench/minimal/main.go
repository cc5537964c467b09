// Command minimal is the cold-start bench's yardstick: the smallest
// honest Go Lambda that does what a function's simplest request does, and
// nothing else. It loads the SDK's default configuration, builds a
// DynamoDB client and answers each API Gateway event after one GetItem
// on TABLE_NAME. A function's cold start is reported as a multiple of
// this one's, measured in the same run (local/bench coldstart), so the
// figure says what the service's own start-up costs beyond the Go
// runtime, aws-lambda-go and the SDK, whatever the machine's load.
//
// It is not deployed: the CDK stack builds functions/ only.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func main() {
	cfg, err := awsconfig.LoadDefaultConfig(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "configuration error:", err)
		os.Exit(2)
	}
	db := dynamodb.NewFromConfig(cfg)
	table := os.Getenv("TABLE_NAME")
	key := map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "BENCH"},
		"SK": &types.AttributeValueMemberS{Value: "BENCH"},
	}
	lambda.Start(func(ctx context.Context, _ events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		if _, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key}); err != nil {
			return events.APIGatewayV2HTTPResponse{}, err
		}
		return events.APIGatewayV2HTTPResponse{
			StatusCode: 200,
			Headers:    map[string]string{"Content-Type": "application/json"},
			Body:       `{"status":"ok"}`,
		}, nil
	})
}
