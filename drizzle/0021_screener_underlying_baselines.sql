CREATE TABLE "screener_underlying_baselines" (
	"session_date" date NOT NULL,
	"symbol" text NOT NULL,
	"low52" double precision,
	"high52" double precision,
	"avg50" double precision,
	"avg200" double precision,
	"rsi" double precision,
	"iv_high" double precision,
	"iv_high_date" date,
	"iv_low" double precision,
	"iv_low_date" date,
	CONSTRAINT "screener_underlying_baselines_session_date_symbol_pk" PRIMARY KEY("session_date","symbol")
);
