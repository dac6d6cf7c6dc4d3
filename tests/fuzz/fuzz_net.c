/* /proc/net/dev, snmp/netstat line pairs and sockstat parsers. */
#include "fuzz.h"
#include "collect/net.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    struct netdevs nd = {0};
    netdev_parse(text, &nd);
    for (size_t i = 0; i < nd.n; i++)
        FUZZ_ASSERT(nd.v[i].name);
    netdevs_free(&nd);

    struct netkvs kv = {0};
    netsnmp_parse(text, &kv);
    netsockstat_parse(text, &kv);
    for (size_t i = 0; i < kv.n; i++) {
        int64_t v;
        FUZZ_ASSERT(kv.v[i].sect && kv.v[i].key);
        FUZZ_ASSERT(netkvs_get(&kv, kv.v[i].sect, kv.v[i].key, &v));
    }
    netkvs_free(&kv);
    free(text);
    return 0;
}
