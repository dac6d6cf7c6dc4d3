/* /proc/net/dev, snmp/netstat line pairs, snmp6, sockstat and udp parsers. */
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
    netsnmp6_parse(text, &kv);
    for (size_t i = 0; i < kv.n; i++) {
        int64_t v;
        FUZZ_ASSERT(kv.v[i].sect && kv.v[i].key);
        FUZZ_ASSERT(netkvs_get(&kv, kv.v[i].sect, kv.v[i].key, &v));
    }
    netkvs_free(&kv);

    struct udpsocks us = {0};
    netudp_parse(text, false, &us);
    netudp_parse(text, true, &us);
    for (size_t i = 0; i < us.n; i++)
        FUZZ_ASSERT(us.v[i].inode != 0 && memchr(us.v[i].local, '\0', sizeof us.v[i].local));
    udpsocks_free(&us);
    uint64_t ino;
    net_socket_inode(text, &ino);
    free(text);
    return 0;
}
