-- One database per service (DESIGN.md section 3), created when the data folder is first initialised.
-- Used by docker-compose.yml and by the dev overlay's PostgreSQL; production databases are created by
-- the operator (docs/operations.md).
CREATE DATABASE omc_auth;
CREATE DATABASE omc_game;
CREATE DATABASE omc_payments;
