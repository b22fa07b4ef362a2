/* apdu-loop.c — the baseline for bench/card-signing.sh: the same PC/SC calls and APDUs one
 * IDEMIA PIN2 signature takes through tamga's stack (connect, PIN2 counter, select, MSE:SET,
 * VERIFY, PSO:CDS, disconnect), with nothing else. Usage: apdu-loop READER RUNS PIN2
 * Prints one line per run: seconds. */
#include <PCSC/winscard.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static SCARDHANDLE card;
static DWORD protocol;

static void send(const unsigned char *apdu, DWORD length, const char *what) {
    unsigned char answer[512];
    DWORD answerLength = sizeof answer;
    const SCARD_IO_REQUEST *pci = protocol == SCARD_PROTOCOL_T0 ? SCARD_PCI_T0 : SCARD_PCI_T1;
    LONG rv = SCardTransmit(card, pci, apdu, length, NULL, answer, &answerLength);
    if (rv != SCARD_S_SUCCESS || answerLength < 2 || answer[answerLength - 2] != 0x90) {
        fprintf(stderr, "%s failed: rv %lx sw %02x%02x\n", what, (unsigned long)rv,
                answerLength >= 2 ? answer[answerLength - 2] : 0, answerLength >= 2 ? answer[answerLength - 1] : 0);
        exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: apdu-loop READER RUNS PIN2\n"); return 2; }
    int runs = atoi(argv[2]);
    const char *pin = argv[3];
    static const unsigned char selectMain[] = {0x00, 0xA4, 0x04, 0x0C, 0x10, 0xA0, 0x00, 0x00, 0x00, 0x77, 0x01, 0x08, 0x00, 0x07, 0x00, 0x00, 0xFE, 0x00, 0x00, 0x01, 0x00};
    unsigned char selectQSCD[5 + 16] = {0x00, 0xA4, 0x04, 0x0C, 0x10};
    memcpy(selectQSCD + 5, "QSCD Application", 16);
    static const unsigned char counter[] = {0x00, 0xCB, 0x3F, 0xFF, 0x0A, 0x4D, 0x08, 0x70, 0x06, 0xBF, 0x81, 0x05, 0x02, 0xA0, 0x80, 0x00};
    static const unsigned char mse[] = {0x00, 0x22, 0x41, 0xB6, 0x06, 0x80, 0x01, 0x54, 0x84, 0x01, 0x9F};
    unsigned char verify[5 + 12] = {0x00, 0x20, 0x00, 0x85, 0x0C};
    memset(verify + 5, 0xFF, 12);
    memcpy(verify + 5, pin, strlen(pin));
    unsigned char pso[5 + 48 + 1] = {0x00, 0x2A, 0x9E, 0x9A, 0x30};
    for (int i = 0; i < 32; i++) pso[5 + 16 + i] = (unsigned char)i;   /* a SHA-256 hash left-padded to 48 bytes */
    SCARDCONTEXT context;
    if (SCardEstablishContext(SCARD_SCOPE_SYSTEM, NULL, NULL, &context) != SCARD_S_SUCCESS) { fprintf(stderr, "no pcscd\n"); return 1; }
    for (int run = 0; run < runs; run++) {
        struct timespec start, end;
        clock_gettime(CLOCK_MONOTONIC, &start);
        if (SCardConnect(context, argv[1], SCARD_SHARE_SHARED, SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1, &card, &protocol) != SCARD_S_SUCCESS) {
            fprintf(stderr, "connect failed\n"); return 1;
        }
        SCardBeginTransaction(card);
        send(selectMain, sizeof selectMain, "SELECT main");
        send(selectQSCD, sizeof selectQSCD, "SELECT QSCD");
        send(counter, sizeof counter, "GET DATA");
        SCardEndTransaction(card, SCARD_LEAVE_CARD);
        SCardBeginTransaction(card);
        send(selectMain, sizeof selectMain, "SELECT main");
        send(selectQSCD, sizeof selectQSCD, "SELECT QSCD");
        send(mse, sizeof mse, "MSE:SET");
        send(verify, sizeof verify, "VERIFY");
        send(pso, sizeof pso, "PSO:CDS");
        SCardEndTransaction(card, SCARD_LEAVE_CARD);
        SCardDisconnect(card, SCARD_LEAVE_CARD);
        clock_gettime(CLOCK_MONOTONIC, &end);
        printf("%.9f\n", (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9);
    }
    SCardReleaseContext(context);
    return 0;
}
